package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// twoModels is node 1 with two L4s (IDs 10, 11; 24 GiB) and node 2 with two
// A100s (IDs 20, 21; 80 GiB): without steering a one-GPU job lands on node 1.
func twoModels() Snapshot {
	s := mk(2, 2)
	for i := range s.GPUs {
		if s.GPUs[i].NodeID == 1 {
			s.GPUs[i].Model, s.GPUs[i].MemoryMiB = "L4", 24576
		} else {
			s.GPUs[i].Model, s.GPUs[i].MemoryMiB = "A100", 81920
		}
	}
	return s
}

// bertCosts: bert runs in 100 s on an A100 and 400 s on an L4.
var bertCosts = []SteerCost{
	{JobType: "bert", GPUModel: "A100", Cost: 110, Runtime: 100 * time.Second},
	{JobType: "bert", GPUModel: "L4", Cost: 440, Runtime: 400 * time.Second},
}

func typed(jt string) jobOpt { return func(j *Job) { j.JobType = jt } }
func learned(d time.Duration) jobOpt {
	return func(j *Job) { j.EstimatedDuration, j.LearnedEstimate = d, true }
}

// On a cluster of two GPU models, pending jobs that accept any model are
// steered to the one the scoring model expects to run them faster, spread
// over the free GPUs, with that model's learned runtime unless the user
// announced one; jobs that name a model, are pinned to a node or whose type
// has no cost are left alone; with one model free nothing is steered.
func TestSteer(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		snap        func() Snapshot
		want        []Steered
		wantStarts  map[int64][]int64
		wantPending []int64
	}{
		"two models": {
			snap: func() Snapshot {
				s := twoModels()
				s.Steering = bertCosts
				s.Pending = []Job{pend(1, 1, 1, typed("bert"), learned(200*time.Second)), pend(2, 1, 1, typed("bert"), learned(200*time.Second)),
					pend(3, 1, 1, typed("bert"), learned(200*time.Second)), pend(4, 1, 1, typed("bert"), model("L4")),
					pend(5, 1, 1, typed("never-seen"))}
				return s
			},
			want: []Steered{{1, "A100", 100 * time.Second}, {2, "A100", 100 * time.Second}, {3, "L4", 400 * time.Second}},
			// Jobs 3 and 4 take the L4s, 1 and 2 the A100s; 5 waits.
			wantStarts:  map[int64][]int64{1: ids(20), 2: ids(21), 3: ids(10), 4: ids(11)},
			wantPending: []int64{5},
		},
		"the user's estimate stays": {
			snap: func() Snapshot {
				s := twoModels()
				s.Steering = bertCosts
				s.Pending = []Job{pend(1, 1, 1, typed("bert"), est(time.Hour))}
				return s
			},
			want:       []Steered{{1, "A100", time.Hour}},
			wantStarts: map[int64][]int64{1: ids(20)},
		},
		"the fast model too small": {
			snap: func() Snapshot {
				s := twoModels()
				s.Steering = []SteerCost{
					{JobType: "big", GPUModel: "A100", Cost: 500, Runtime: 500 * time.Second},
					{JobType: "big", GPUModel: "L4", Cost: 100, Runtime: 100 * time.Second},
				}
				s.Pending = []Job{pend(1, 1, 1, typed("big"), mem(40000), learned(time.Hour))}
				return s
			},
			want:       []Steered{{1, "A100", 500 * time.Second}},
			wantStarts: map[int64][]int64{1: ids(20)},
		},
		"pinned to a node": {
			snap: func() Snapshot {
				s := twoModels()
				s.Steering = bertCosts
				s.Pending = []Job{pend(1, 1, 1, typed("bert"), onNode(1))}
				return s
			},
			wantStarts: map[int64][]int64{1: ids(10)},
		},
		"one model free": {
			snap: func() Snapshot {
				s := twoModels()
				s.Steering = bertCosts
				s.Running = []Job{run(9, 2, time.Hour, time.Hour, ids(20, 21))}
				s.Pending = []Job{pend(1, 1, 1, typed("bert"))}
				return s
			},
			wantStarts: map[int64][]int64{1: ids(10)},
		},
		"no costs": {
			snap: func() Snapshot {
				s := twoModels()
				s.Pending = []Job{pend(1, 1, 1, typed("bert"))}
				return s
			},
			wantStarts: map[int64][]int64{1: ids(10)},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tc.snap()
			before := slices.Clone(s.Pending)
			pl := Schedule(s, DefaultConfig())
			if diff := cmp.Diff(tc.want, pl.Steered); diff != "" {
				t.Errorf("steered (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantStarts, startsOf(pl)); diff != "" {
				t.Errorf("starts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPending, queueOf(pl)); diff != "" {
				t.Errorf("waiting (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, s.Pending); diff != "" {
				t.Errorf("the snapshot's pending jobs changed (-before +after):\n%s", diff)
			}
		})
	}
}

// Steering does not depend on the order of the snapshot's slices.
func TestSteerShuffled(t *testing.T) {
	t.Parallel()
	s := twoModels()
	s.Steering = append(slices.Clone(bertCosts), SteerCost{JobType: "gpt", GPUModel: "A100", Cost: 300, Runtime: 300 * time.Second},
		SteerCost{JobType: "gpt", GPUModel: "L4", Cost: 320, Runtime: 310 * time.Second})
	for i := range int64(6) {
		jt := "bert"
		if i%2 == 1 {
			jt = "gpt"
		}
		s.Pending = append(s.Pending, pend(i+1, 1, 1, typed(jt), learned(time.Hour)))
	}
	want := Schedule(s, DefaultConfig())
	if len(want.Steered) == 0 {
		t.Fatal("nothing steered")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		c := s
		c.Pending, c.Steering, c.GPUs = slices.Clone(s.Pending), slices.Clone(s.Steering), slices.Clone(s.GPUs)
		r.Shuffle(len(c.Pending), func(i, j int) { c.Pending[i], c.Pending[j] = c.Pending[j], c.Pending[i] })
		r.Shuffle(len(c.Steering), func(i, j int) { c.Steering[i], c.Steering[j] = c.Steering[j], c.Steering[i] })
		r.Shuffle(len(c.GPUs), func(i, j int) { c.GPUs[i], c.GPUs[j] = c.GPUs[j], c.GPUs[i] })
		if diff := cmp.Diff(want, Schedule(c, DefaultConfig())); diff != "" {
			t.Fatalf("shuffled input, another plan (-want +got):\n%s", diff)
		}
	}
}
