package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPlacement checks gang placement: one node first, NVLink groups, best
// fit, multi-node only when allowed, model and memory filters.
func TestPlacement(t *testing.T) {
	t.Parallel()
	mixed := mk(2, 4)
	for i := range mixed.GPUs[4:] { // node 2: A100 40GB
		mixed.GPUs[4+i].Model, mixed.GPUs[4+i].MemoryMiB = "NVIDIA A100-SXM4-40GB", 40960
	}
	groups := mk(1, 8) // two NVLink groups of four
	for i := range groups.GPUs {
		groups.GPUs[i].NVLinkGroup = i / 4
	}
	cases := map[string]struct {
		s       Snapshot
		running []Job
		pending []Job
		want    map[int64][]int64
	}{
		"one node rather than two, even when spanning is allowed": {
			s:       mk(2, 8),
			running: []Job{run(90, 9, time.Hour, time.Hour, gpuRange(10, 13))},
			pending: []Job{pend(1, 1, 4, multi())},
			want:    map[int64][]int64{1: gpuRange(14, 17)},
		},
		"best fit keeps a whole node free for an 8-GPU job": {
			s:       mk(2, 8),
			running: []Job{run(90, 9, time.Hour, time.Hour, gpuRange(20, 24))}, // node 2 has 3 free
			pending: []Job{pend(1, 1, 2), pend(2, 1, 8)},
			want:    map[int64][]int64{1: ids(25, 26), 2: gpuRange(10, 17)},
		},
		"ties go to the lower node ID, then the lower index": {
			s:       mk(2, 8),
			pending: []Job{pend(1, 1, 3)},
			want:    map[int64][]int64{1: ids(10, 11, 12)},
		},
		"NVLink: the group that holds the job exactly": {
			s:       groups,
			running: []Job{run(90, 9, time.Hour, time.Hour, ids(10, 11, 17))}, // group 0: 12,13 free; group 1: 14,15,16
			pending: []Job{pend(1, 1, 2), pend(2, 1, 3)},
			want:    map[int64][]int64{1: ids(12, 13), 2: ids(14, 15, 16)},
		},
		"NVLink: one group rather than the lowest indices": {
			s:       groups,
			running: []Job{run(90, 9, time.Hour, time.Hour, ids(10, 11))}, // group 0: 12,13; group 1: all four
			pending: []Job{pend(1, 1, 3)},
			want:    map[int64][]int64{1: ids(14, 15, 16)},
		},
		"multi-node when allowed and one node is not enough: fewest nodes, best fit last": {
			s: mk(3, 8),
			running: []Job{run(90, 9, time.Hour, time.Hour, gpuRange(10, 14)), // node 1: 3 free
				run(91, 9, time.Hour, time.Hour, gpuRange(20, 21))}, // node 2: 6 free; node 3: 8
			pending: []Job{pend(1, 1, 11, multi())},
			want:    map[int64][]int64{1: append(gpuRange(15, 17), gpuRange(30, 37)...)},
		},
		"model filter is a case-insensitive substring": {
			s:       mixed,
			pending: []Job{pend(1, 1, 2, model("a100")), pend(2, 1, 1, model("h100"))},
			want:    map[int64][]int64{1: ids(20, 21), 2: ids(10)},
		},
		"pinned to a node: only that node's GPUs, even when another fits better": {
			s:       mk(2, 8),
			running: []Job{run(90, 9, time.Hour, time.Hour, gpuRange(20, 24))}, // node 2 has 3 free
			pending: []Job{pend(1, 1, 2, onNode(1)), pend(2, 1, 4, onNode(2))},
			want:    map[int64][]int64{1: ids(10, 11)},
		},
		"memory filter": {
			s:       mixed,
			pending: []Job{pend(1, 1, 4, mem(80000)), pend(2, 1, 1, mem(40960))},
			want:    map[int64][]int64{1: gpuRange(10, 13), 2: ids(20)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tc.s
			s.Running, s.Pending = tc.running, tc.pending
			got := startsOf(Schedule(s, cfg("fcfs")))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("starts (-want +got):\n%s", d)
			}
		})
	}
}

// TestMultiNodeOnlyWhenAllowed checks that a gang job never spans nodes
// unless it asks to, and that the refusal is explained as fragmentation.
func TestMultiNodeOnlyWhenAllowed(t *testing.T) {
	t.Parallel()
	s := mk(2, 8)
	s.Running = []Job{run(90, 9, time.Hour, time.Hour, gpuRange(10, 13)), run(91, 9, time.Hour, time.Hour, gpuRange(20, 23))}
	s.Pending = []Job{pend(1, 1, 6)}
	pl := Schedule(s, cfg("fcfs"))
	want := map[int64]string{1: "fragmented: needs 6 GPUs on one node; at most 4 free on any node"}
	if d := cmp.Diff(want, codesOf(pl)); d != "" || len(pl.Starts) != 0 {
		t.Errorf("single-node job (-want +got):\n%s\nstarts: %v", d, pl.Starts)
	}
	s.Pending = []Job{pend(1, 1, 6, multi())}
	got := startsOf(Schedule(s, cfg("fcfs")))
	if d := cmp.Diff(map[int64][]int64{1: ids(14, 15, 16, 17, 24, 25)}, got); d != "" {
		t.Errorf("multi-node job (-want +got):\n%s", d)
	}
}

// TestAvailability checks that nothing is placed on an unhealthy, drained
// or foreign GPU, on a node that is down or drained, on a GPU a running job
// holds, or on a GPU whose node is missing from the snapshot.
func TestAvailability(t *testing.T) {
	t.Parallel()
	cases := map[string]func(*Snapshot){
		"unhealthy":    func(s *Snapshot) { s.GPUs[0].Healthy = false },
		"drained GPU":  func(s *Snapshot) { s.GPUs[0].Drained = true },
		"foreign":      func(s *Snapshot) { s.GPUs[0].Foreign = true },
		"node down":    func(s *Snapshot) { s.Nodes[0].Up = false },
		"node drained": func(s *Snapshot) { s.Nodes[0].Drained = true },
		"held":         func(s *Snapshot) { s.Running = []Job{run(90, 9, time.Hour, time.Hour, ids(10))} },
		"node missing": func(s *Snapshot) { s.Nodes = s.Nodes[1:] },
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mk(2, 1) // GPU 10 on node 1, GPU 20 on node 2
			spoil(&s)
			s.Pending = []Job{pend(1, 1, 1), pend(2, 1, 1)}
			pl := Schedule(s, cfg("fcfs"))
			if d := cmp.Diff(map[int64][]int64{1: ids(20)}, startsOf(pl)); d != "" {
				t.Errorf("starts (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]int64{2}, queueOf(pl)); d != "" {
				t.Errorf("waiting (-want +got):\n%s", d)
			}
		})
	}
}
