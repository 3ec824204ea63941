package scheduler

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestShapedPreemption checks the victims a shaped head (N nodes × G GPUs)
// chooses: enough GPUs on each of N nodes, not merely in all; the cheapest
// such set; none that does not help; none at all when stopping every
// candidate still leaves the shape unmet.
func TestShapedPreemption(t *testing.T) {
	t.Parallel()
	low := func(id int64, ran time.Duration, gpus ...int64) Job {
		return run(id, 9, ran, 10*time.Hour, gpus, prio(PriorityLow), preemptible())
	}
	head := func(gpus, n int) Job { return pend(1, 1, gpus, nodes(n), prio(PriorityHigh)) }
	cases := map[string]struct {
		nodes, per int
		running    []Job
		pending    []Job
		victims    []int64
	}{
		// Node 1's 8 GPUs alone would be enough GPUs in all, but 2×4
		// needs 4 on node 2 too: 90 and the cheaper of 91, 92.
		"GPUs on each node, not in all": {
			nodes: 2, per: 8,
			running: []Job{low(90, time.Hour, gpuRange(10, 17)...), low(91, time.Hour, gpuRange(20, 23)...), low(92, 2*time.Hour, gpuRange(24, 27)...)},
			pending: []Job{head(8, 2)},
			victims: []int64{90, 91},
		},
		// 90 spans both nodes with 4 on each: stopping it alone frees the
		// shape; 91 (node 1) would add GPUs the head does not need.
		"a multi-node victim frees every node it holds": {
			nodes: 2, per: 8,
			running: []Job{low(90, time.Hour, append(gpuRange(14, 17), gpuRange(24, 27)...)...), low(91, 2*time.Hour, gpuRange(10, 13)...),
				low(92, 2*time.Hour, gpuRange(20, 23)...)},
			pending: []Job{head(8, 2)},
			victims: []int64{90},
		},
		// Node 1 has 4 free; one more node is needed: the cheaper one.
		"only the nodes the shape lacks": {
			nodes: 3, per: 8,
			running: []Job{run(80, 9, time.Hour, time.Hour, gpuRange(10, 13)), low(91, time.Hour, gpuRange(20, 27)...),
				low(92, time.Hour, gpuRange(30, 35)...)},
			pending: []Job{head(8, 2)},
			victims: []int64{92},
		},
		// Node 3 is held by a job that cannot be preempted: 3×4 can never
		// be had now, so nothing is stopped, however cheap.
		"nothing when the shape cannot be met": {
			nodes: 3, per: 4,
			running: []Job{low(90, time.Hour, gpuRange(10, 13)...), low(91, time.Hour, gpuRange(20, 23)...),
				run(92, 9, time.Hour, time.Hour, gpuRange(30, 31))},
			pending: []Job{head(12, 3)},
		},
		// More candidates than are tried exhaustively: 16 one-GPU jobs on
		// two nodes of 8; 2×2 stops the two cheapest on each node.
		"many candidates": {
			nodes: 2, per: 8,
			running: func() []Job {
				var js []Job
				for i := range int64(8) {
					js = append(js, low(100+i, time.Duration(8-i)*time.Hour, 10+i), low(200+i, time.Duration(1+i)*time.Hour, 20+i))
				}
				return js
			}(),
			pending: []Job{head(4, 2)},
			victims: []int64{106, 107, 200, 201},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mk(tc.nodes, tc.per)
			s.Running, s.Pending = tc.running, tc.pending
			pl := Schedule(s, cfg("priority", func(c *Config) { c.AgingPerHour = 0 }))
			var victims []int64
			for _, p := range pl.Preemptions {
				victims = append(victims, p.JobID)
			}
			if d := cmp.Diff(tc.victims, victims); d != "" {
				t.Errorf("victims (-want +got):\n%s", d)
			}
			why := whyOf(pl)[1]
			if (why.Code == ReasonPreempting) != (tc.victims != nil) {
				t.Errorf("the head's explanation: %s: %s", why.Code, why.Reason)
			}
			if len(pl.Starts) != 0 {
				t.Errorf("starts %v, want none", pl.Starts)
			}
			if tc.victims != nil {
				checkShapedVictims(t, s, tc.pending[0], victims)
			}
		})
	}
}

// checkShapedVictims checks that once victims stop (with the jobs stopping
// already), the shaped job j fits exactly: Nodes nodes with GPUsPerNode
// free GPUs each; and that each victim is needed: without it, it does not.
func checkShapedVictims(t interface {
	Helper()
	Errorf(string, ...any)
}, s Snapshot, j Job, victims []int64) {
	t.Helper()
	if !shapeFitsAfter(s, j, victims, -1) {
		t.Errorf("after stopping %v, job %d (%d nodes × %d GPUs) does not fit", victims, j.ID, j.Nodes, j.GPUsPerNode())
	}
	for _, v := range victims {
		if shapeFitsAfter(s, j, victims, v) {
			t.Errorf("victim %d does not help: job %d fits after stopping %v without it", v, j.ID, victims)
		}
	}
}

// shapeFitsAfter reports whether job j's shape fits the GPUs of s free
// once the victims (but skip) and the jobs stopping already have stopped.
func shapeFitsAfter(s Snapshot, j Job, victims []int64, skip int64) bool {
	held := map[int64]bool{}
	for _, r := range s.Running {
		if r.Stopping || (r.ID != skip && slices.Contains(victims, r.ID)) {
			continue
		}
		for _, g := range r.GPUs {
			held[g] = true
		}
	}
	free := map[int64]int{}
	for _, g := range s.GPUs {
		if !held[g.ID] && g.Healthy {
			free[g.NodeID]++
		}
	}
	n := 0
	for _, k := range free {
		if k >= j.GPUsPerNode() {
			n++
		}
	}
	return n >= j.Nodes
}

// TestShapedPreemptionProperty: on random clusters with random running
// jobs (some preemptible and of lower priority, some on several nodes,
// some stopping already), a shaped head of higher priority preempts only
// victims after whose stop it fits exactly (Nodes nodes with GPUsPerNode
// free each), each of them needed; and when stopping every candidate
// would make it fit but it neither starts nor preempts, free and stopping
// GPUs must suffice already (it waits for them) or nothing is stopped.
func TestShapedPreemptionProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		nNodes, per := rapid.IntRange(2, 4).Draw(t, "nodes"), rapid.IntRange(2, 8).Draw(t, "per")
		s := mk(nNodes, per)
		free := map[int64]bool{}
		for _, g := range s.GPUs {
			free[g.ID] = true
		}
		var order []int64
		for _, g := range s.GPUs {
			order = append(order, g.ID)
		}
		for id := int64(90); id < 90+int64(rapid.IntRange(0, 12).Draw(t, "jobs")); id++ {
			var gpus []int64
			for _, g := range rapid.SliceOfNDistinct(rapid.SampledFrom(order), 1, 4, func(g int64) int64 { return g }).Draw(t, "gpus") {
				if free[g] {
					gpus, free[g] = append(gpus, g), false
				}
			}
			if len(gpus) == 0 {
				continue
			}
			slices.Sort(gpus)
			opts := []jobOpt{prio(rapid.IntRange(PriorityLow, PriorityHigh).Draw(t, "prio"))}
			if rapid.IntRange(0, 3).Draw(t, "preemptible") > 0 {
				opts = append(opts, preemptible())
			}
			if rapid.IntRange(0, 6).Draw(t, "stopping") == 0 {
				opts = append(opts, stopping())
			}
			ran := time.Duration(rapid.IntRange(1, 600).Draw(t, "ran")) * time.Minute
			s.Running = append(s.Running, run(id, 9, ran, 10*time.Hour, gpus, opts...))
		}
		n := rapid.IntRange(2, nNodes).Draw(t, "head nodes")
		g := rapid.IntRange(1, per).Draw(t, "head per node")
		head := pend(1, 1, n*g, nodes(n), prio(PriorityCritical))
		s.Pending = []Job{head}
		c := cfg("priority", func(c *Config) { c.AgingPerHour = 0 })
		pl := Schedule(s, c)
		var victims []int64
		for _, p := range pl.Preemptions {
			victims = append(victims, p.JobID)
		}
		if len(pl.Starts) > 0 {
			if len(victims) > 0 {
				t.Fatalf("the head started and preempted %v", victims)
			}
			return
		}
		if len(victims) > 0 {
			checkShapedVictims(t, s, head, victims)
			return
		}
		var candidates []int64
		for _, r := range s.Running {
			if !r.Stopping && r.Preemptible && r.Priority < head.Priority && s.Now.Sub(r.StartedAt) >= time.Duration(c.MinRuntime) {
				candidates = append(candidates, r.ID)
			}
		}
		if shapeFitsAfter(s, head, candidates, -1) && !shapeFitsAfter(s, head, nil, -1) {
			t.Fatalf("stopping %v would make the head fit, but nothing was preempted: %+v", candidates, whyOf(pl)[1])
		}
	})
}
