package scheduler

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestEarliestBruteForce checks the sweep that finds a request's earliest
// start against trying every instant at which some GPU frees up.
func TestEarliestBruteForce(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := mk(rapid.IntRange(1, 3).Draw(t, "nodes"), rapid.IntRange(1, 4).Draw(t, "per"))
		p := newPass(&s, DefaultConfig())
		p.prof = p.buildProfile()
		hour := int64(time.Hour)
		for range rapid.IntRange(0, 12).Draw(t, "spans") {
			gi := int32(rapid.IntRange(0, len(p.gpus)-1).Draw(t, "gpu"))
			a := int64(rapid.IntRange(-2, 8).Draw(t, "from")) * hour / 2
			b := a + int64(rapid.IntRange(1, 6).Draw(t, "len"))*hour/2
			p.prof.add(gi, span{a, b, rapid.Int64Range(0, 2).Draw(t, "owner")})
		}
		rq := request{f: p.filterFor("", 0, 0), k: rapid.IntRange(1, 5).Draw(t, "k"), multi: rapid.Bool().Draw(t, "multi"),
			user: rapid.Int64Range(1, 2).Draw(t, "user"), dur: int64(rapid.IntRange(1, 6).Draw(t, "dur")) * hour / 2}
		lo := int64(rapid.IntRange(0, 4).Draw(t, "lo")) * hour / 2
		got, gs := p.earliest(&rq, lo)

		free := func(gi int32, at int64) bool { // no span that keeps the user off overlaps [at, at+dur)
			for _, sp := range p.prof.spans[gi] {
				if (sp.owner == 0 || sp.owner != rq.user) && sp.s < at+rq.dur && at < sp.e {
					return false
				}
			}
			return true
		}
		times := []int64{lo}
		for _, ss := range p.prof.spans {
			for _, sp := range ss {
				if sp.e > lo {
					times = append(times, sp.e)
				}
			}
		}
		slices.Sort(times)
		want := forever
		for _, at := range times {
			total, most := 0, 0
			for ni := range p.nodes {
				n := 0
				for _, gi := range p.nodes[ni].gpus {
					if free(gi, at) {
						n++
					}
				}
				total, most = total+n, max(most, n)
			}
			if most >= rq.k || (rq.multi && total >= rq.k) {
				want = at
				break
			}
		}
		if got != want {
			t.Fatalf("earliest = %v, brute force %v (request %+v)", got, want, rq)
		}
		if want == forever {
			return
		}
		nodes := map[int32]bool{}
		for _, gi := range gs {
			if !free(gi, got) {
				t.Fatalf("GPU %d is not free at %v", gi, got)
			}
			nodes[p.gpus[gi].node] = true
		}
		if len(gs) != rq.k || (len(nodes) > 1 && !rq.multi) {
			t.Fatalf("placement %v for %+v", gs, rq)
		}
	})
}
