package scoring

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Over 1,000 decisions with varied job types, GPU types and observations,
// the exploratory share never exceeds the cap, over all decisions or over
// the window, after any decision; a cap of 0 never explores.
func TestExplorationCapHolds(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		c := DefaultConfig()
		c.ExplorationCap = rapid.SampledFrom([]float64{0, 0.05, 0.25, 0.5, 1}).Draw(t, "cap")
		c.Window = rapid.IntRange(1, 200).Draw(t, "window")
		c.Beta = rapid.Float64Range(0, 5).Draw(t, "beta")
		ex := NewExplorer(c.ExplorationCap, c.Window)
		st := newState()
		gpus := []string{"A100-80GB", "H100-80GB", "L4-24GB", "T4-16GB"}
		for i := range 1000 {
			job := fmt.Sprintf("job-%d", rapid.IntRange(0, 9).Draw(t, "job"))
			cands := rapid.SliceOfNDistinct(rapid.SampledFrom(gpus), 1, len(gpus), rapid.ID[string]).Draw(t, "candidates")
			d, err := c.Decide(st, Request{JobType: job, Candidates: cands}, ex)
			if err != nil {
				t.Fatal(err)
			}
			if ex.Ratio() > c.ExplorationCap || ex.WindowRatio() > c.ExplorationCap {
				t.Fatalf("decision %d: exploration %v overall, %v in the window, cap %v", i, ex.Ratio(), ex.WindowRatio(), c.ExplorationCap)
			}
			if c.ExplorationCap == 0 && d.Explored {
				t.Fatalf("decision %d explored with a cap of 0", i)
			}
			if rapid.Bool().Draw(t, "observe") {
				learn(c, st, Observation{JobType: job, GPUType: d.Chosen.GPUType, RuntimeS: rapid.Float64Range(1, 1e5).Draw(t, "runtime")})
			}
		}
		if ex.Total() != 1000 {
			t.Fatalf("recorded %d decisions", ex.Total())
		}
	})
}

// The model explores an unknown GPU type while the cap allows, and
// exploits what it knows when the cap says no.
func TestExploresUnknownWithinCap(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	st := newState()
	for range 10 {
		learn(c, st, Observation{JobType: "train-bert", GPUType: "A100-80GB", RuntimeS: 73.4})
	}
	r := Request{JobType: "train-bert", Candidates: []string{"A100-80GB", "L4-24GB"}}
	tests := map[string]struct {
		cap      float64
		explored bool
		gpu      string
	}{
		"cap 1 explores":  {1, true, "L4-24GB"},
		"cap 0 exploits":  {0, false, "A100-80GB"},
		"cap .25 at once": {0.25, false, "A100-80GB"}, // 1 of 1 would be 100%
	}
	for name, tc := range tests {
		d, err := c.Decide(st, r, NewExplorer(tc.cap, 100))
		if err != nil {
			t.Fatal(err)
		}
		if d.Explored != tc.explored || d.Chosen.GPUType != tc.gpu || d.Capped == tc.explored {
			t.Errorf("%s: explored %t capped %t on %s, want %t on %s", name, d.Explored, d.Capped, d.Chosen.GPUType, tc.explored, tc.gpu)
		}
	}
	// Once both types are known, the faster one wins without exploring.
	for range 10 {
		learn(c, st, Observation{JobType: "train-bert", GPUType: "L4-24GB", RuntimeS: 300})
	}
	d, err := c.Decide(st, r, NewExplorer(1, 100))
	if err != nil || d.Explored || d.Chosen.GPUType != "A100-80GB" || d.PriorityScore != 100 {
		t.Fatalf("learned both: %+v, %v", d, err)
	}
}

// A learned bad co-location raises the cost only when interference is
// enabled, and is named in Avoid only then.
func TestInterferenceOnlyWhenEnabled(t *testing.T) {
	t.Parallel()
	base := DefaultConfig()
	base.Gamma = 1
	st := newState()
	for range 5 {
		learn(base, st, Observation{JobType: "train-bert", GPUType: "A100-80GB", RuntimeS: 100})
	}
	for range 5 {
		learn(base, st, Observation{JobType: "train-bert", GPUType: "A100-80GB", RuntimeS: 160, Colocated: []string{"train-llama"}})
		learn(base, st, Observation{JobType: "train-bert", GPUType: "A100-80GB", RuntimeS: 101, Colocated: []string{"etl"}})
	}
	score := func(enable bool, colocated ...string) Decision {
		c := base
		c.EnableInterference = enable
		d, err := c.Decide(st, Request{JobType: "train-bert", Candidates: []string{"A100-80GB"}, Colocated: colocated}, NewExplorer(0, 1))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	alone := score(true)
	tests := map[string]struct {
		d       Decision
		raised  bool
		avoided []string
	}{
		"enabled, bad neighbour":      {score(true, "train-llama"), true, []string{"train-llama"}},
		"enabled, harmless neighbour": {score(true, "etl"), false, nil},
		"enabled, both":               {score(true, "etl", "train-llama", "etl"), true, []string{"train-llama"}},
		"disabled, bad neighbour":     {score(false, "train-llama"), false, nil},
		"enabled, unknown neighbour":  {score(true, "never-seen"), false, nil},
	}
	for name, tc := range tests {
		raised := tc.d.Chosen.Cost > alone.Chosen.Cost+0.1
		if raised != tc.raised {
			t.Errorf("%s: cost %v alone %v, raised %t want %t", name, tc.d.Chosen.Cost, alone.Chosen.Cost, raised, tc.raised)
		}
		if diff := cmp.Diff(tc.avoided, tc.d.Avoid); diff != "" {
			t.Errorf("%s: avoid (-want +got):\n%s", name, diff)
		}
	}
}

// The same state and request give the same decision whatever the order of
// the candidates, and an explorer in the same state.
func TestDecideDeterministic(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		c := DefaultConfig()
		st := newState()
		gpus := []string{"A100", "H100", "L4", "T4", "V100"}
		for range rapid.IntRange(0, 30).Draw(t, "observations") {
			learn(c, st, Observation{JobType: "j", GPUType: rapid.SampledFrom(gpus).Draw(t, "gpu"), RuntimeS: rapid.Float64Range(1, 1000).Draw(t, "s")})
		}
		cands := rapid.SliceOfNDistinct(rapid.SampledFrom(gpus), 1, 5, rapid.ID[string]).Draw(t, "candidates")
		shuffled := slices.Clone(cands)
		slices.Reverse(shuffled)
		a, errA := c.Decide(st, Request{JobType: "j", Candidates: cands}, NewExplorer(0.3, 10))
		b, errB := c.Decide(st, Request{JobType: "j", Candidates: shuffled}, NewExplorer(0.3, 10))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if a.Chosen != b.Chosen || a.Explored != b.Explored || a.PriorityScore != b.PriorityScore {
			t.Fatalf("order changed the decision: %+v vs %+v", a.Chosen, b.Chosen)
		}
		if math.IsNaN(a.Chosen.Cost) || a.PriorityScore < 0 || a.PriorityScore > 100 {
			t.Fatalf("bad decision %+v", a)
		}
	})
}

func TestExplorerWindow(t *testing.T) {
	t.Parallel()
	ex := NewExplorer(0.5, 4)
	var got []bool
	for range 12 {
		ok := ex.Allow()
		ex.Record(ok)
		got = append(got, ok)
	}
	want := []bool{false, true, false, true, false, true, false, true, false, true, false, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}
