package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func nodes(n int) jobOpt { return func(j *Job) { j.Nodes = n } }

// TestShapedPlacement checks that a shaped job takes exactly its nodes
// with exactly its GPUs on each, and that its wait says so.
func TestShapedPlacement(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		s       Snapshot
		running []Job
		pending []Job
		want    map[int64][]int64
		wantWhy map[int64]string
		wantETA map[int64]time.Time
	}{
		"2×4 on two 8-GPU nodes takes four on each, not one whole node": {
			s:       mk(2, 8),
			pending: []Job{pend(1, 1, 8, nodes(2))},
			want:    map[int64][]int64{1: append(gpuRange(10, 13), gpuRange(20, 23)...)},
		},
		"unshaped 8 on two 8-GPU nodes still packs onto one": {
			s:       mk(2, 8),
			pending: []Job{pend(1, 1, 8, multi())},
			want:    map[int64][]int64{1: gpuRange(10, 17)},
		},
		"3×4 is never split 8+4": {
			s:       mk(3, 8),
			pending: []Job{pend(1, 1, 12, nodes(3))},
			want:    map[int64][]int64{1: append(append(gpuRange(10, 13), gpuRange(20, 23)...), gpuRange(30, 33)...)},
		},
		"best fit: the nodes with fewest free that still hold the share": {
			s:       mk(3, 8),
			running: []Job{run(90, 9, time.Hour, time.Hour, gpuRange(20, 23))}, // node 2 has 4 free
			pending: []Job{pend(1, 1, 8, nodes(2))},
			want:    map[int64][]int64{1: append(gpuRange(10, 13), gpuRange(24, 27)...)},
		},
		"waits when only one node has enough free, and says so": {
			s:       mk(2, 8),
			running: []Job{run(90, 9, time.Hour, time.Hour, gpuRange(20, 25))}, // node 2 has 2 free
			pending: []Job{pend(1, 1, 8, nodes(2))},
			want:    map[int64][]int64{},
			wantWhy: map[int64]string{1: ReasonNoCapacity + ": needs 2 nodes with 4 free GPUs each; 1 node has that many free"},
			wantETA: map[int64]time.Time{1: at(time.Hour)},
		},
		"never fits: too few nodes": {
			s:       mk(2, 8),
			pending: []Job{pend(1, 1, 12, nodes(3))},
			want:    map[int64][]int64{},
			wantWhy: map[int64]string{1: ReasonNoMatchingGPU + ": needs 3 nodes with 4 GPUs each; the cluster has 2 such nodes"},
		},
		"never fits: uneven": {
			s:       mk(2, 8),
			pending: []Job{pend(1, 1, 7, nodes(2))},
			want:    map[int64][]int64{},
			wantWhy: map[int64]string{1: ReasonNoMatchingGPU + ": asks for 7 GPUs on 2 nodes; the GPUs must divide evenly among the nodes"},
		},
		"backfill: a small job runs beside a shaped job's reservation": {
			s:       mk(2, 4),
			running: []Job{run(90, 9, time.Hour, time.Hour, gpuRange(20, 22))},
			pending: []Job{pend(1, 1, 8, nodes(2)), pend(2, 2, 1, est(30*time.Minute))},
			want:    map[int64][]int64{2: ids(23)},
			wantETA: map[int64]time.Time{1: at(time.Hour)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tc.s
			s.Running, s.Pending = tc.running, tc.pending
			pl := Schedule(s, cfg("priority-backfill"))
			if d := cmp.Diff(tc.want, startsOf(pl), cmpPlan); d != "" {
				t.Errorf("starts (-want +got):\n%s", d)
			}
			codes := codesOf(pl)
			for id, w := range tc.wantWhy {
				if d := cmp.Diff(w, codes[id]); d != "" {
					t.Errorf("job %d reason (-want +got):\n%s", id, d)
				}
			}
			why := whyOf(pl)
			for id, w := range tc.wantETA {
				if !why[id].EstimatedStart.Equal(w) {
					t.Errorf("job %d estimated start %v, want %v", id, why[id].EstimatedStart, w)
				}
			}
		})
	}
}

// TestPropertyShaped checks on random clusters that a shaped job that
// starts lands on exactly its nodes with exactly its GPUs per node, and
// that the job's shape changes nothing for unshaped jobs (the same plan
// as with Nodes 0 when every job is unshaped).
func TestPropertyShaped(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		s := mk(rapid.IntRange(1, 5).Draw(rt, "nodes"), rapid.IntRange(1, 8).Draw(rt, "per"))
		gpuNode := map[int64]int64{}
		for _, g := range s.GPUs {
			gpuNode[g.ID] = g.NodeID
		}
		njobs := rapid.IntRange(1, 6).Draw(rt, "jobs")
		for i := range njobs {
			n := rapid.IntRange(0, 4).Draw(rt, "n")
			per := rapid.IntRange(1, 8).Draw(rt, "g")
			k := per * max(n, 1)
			s.Pending = append(s.Pending, pend(int64(i+1), int64(i%3+1), k, nodes(n)))
		}
		pl := Schedule(s, cfg(rapid.SampledFrom([]string{"fcfs", "priority-backfill", "priority", "las-backfill"}).Draw(rt, "cfg")))
		byID := map[int64]Job{}
		for _, j := range s.Pending {
			byID[j.ID] = j
		}
		for _, st := range pl.Starts {
			j := byID[st.JobID]
			per := map[int64]int{}
			for _, g := range st.GPUIDs {
				per[gpuNode[g]]++
			}
			if len(st.GPUIDs) != j.GPUCount {
				rt.Fatalf("job %d got %d GPUs, asked %d", j.ID, len(st.GPUIDs), j.GPUCount)
			}
			if !j.Shaped() {
				if len(per) != 1 {
					rt.Fatalf("unshaped single-node job %d spans %v", j.ID, per)
				}
				continue
			}
			if len(per) != j.Nodes {
				rt.Fatalf("job %d on %d nodes, asked %d: %v", j.ID, len(per), j.Nodes, per)
			}
			for n, c := range per {
				if c != j.GPUsPerNode() {
					rt.Fatalf("job %d has %d GPUs on node %d, asked %d each", j.ID, c, n, j.GPUsPerNode())
				}
			}
		}
		// Unshaped: Nodes 0 and 1 plan alike.
		one := s
		one.Pending = nil
		zero := s
		zero.Pending = nil
		for _, j := range s.Pending {
			if j.Shaped() {
				continue
			}
			j1, j0 := j, j
			j1.Nodes, j0.Nodes = 1, 0
			one.Pending, zero.Pending = append(one.Pending, j1), append(zero.Pending, j0)
		}
		c := cfg("priority-backfill")
		if d := cmp.Diff(Schedule(zero, c), Schedule(one, c), cmpPlan); d != "" {
			rt.Fatalf("Nodes 1 differs from Nodes 0 (-0 +1):\n%s", d)
		}
	})
}
