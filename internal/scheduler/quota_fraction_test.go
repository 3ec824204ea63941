package scheduler

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// mkMIG is one node whose GPU 1 is split into seven 1g.10gb devices
// (IDs 100…106, each 1/7 of the GPU) beside whole GPU 10.
func mkMIG() Snapshot {
	s := mk(1, 1)
	for k := range int64(7) {
		s.GPUs = append(s.GPUs, GPU{ID: 100 + k, NodeID: 1, Index: 1, Model: s.GPUs[0].Model, MemoryMiB: 9984,
			Profile: "1g.10gb", Fraction: 1.0 / 7, Healthy: true})
	}
	return s
}

// TestQuotaByFraction: quotas count a slot of a shared GPU and a MIG
// device as the part of a GPU it is (0.25 of a GPU shared four ways, 1/7
// for a 1g.10gb slice of an H100), not as a whole GPU.
func TestQuotaByFraction(t *testing.T) {
	t.Parallel()
	capped := func(n int) map[int64]Principal { return map[int64]Principal{1: {GPUCap: n}} }
	cases := map[string]struct {
		s       Snapshot
		users   map[int64]Principal
		running []Job
		pending []Job
		starts  []int64
		waits   map[int64]string
	}{
		"four quarter shares fill a cap of one GPU, a fifth waits": {
			s:       mkShared(),
			users:   capped(1),
			running: []Job{run(90, 1, time.Hour, time.Hour, ids(120), share(0.25))},
			pending: []Job{pend(1, 1, 1, share(0.25)), pend(2, 1, 1, share(0.25)), pend(3, 1, 1, share(0.25)), pend(4, 1, 1, share(0.25))},
			starts:  []int64{1, 2, 3},
			waits:   map[int64]string{4: "user_quota: user quota reached 1/1 GPUs"},
		},
		"a half share leaves half a GPU of the cap": {
			s:       mkShared(),
			users:   capped(1),
			running: []Job{run(90, 1, time.Hour, time.Hour, ids(120, 121), share(0.5))},
			pending: []Job{pend(1, 1, 1), pend(2, 1, 1, share(0.5))},
			starts:  []int64{2},
			waits:   map[int64]string{1: "user_quota: user quota: 0.5/1 GPUs in use; this job needs 1 more"},
		},
		"seven slices are one GPU": {
			s:       mkMIG(),
			users:   capped(1),
			running: []Job{run(90, 1, time.Hour, time.Hour, ids(100, 101, 102), model("1g.10gb"))},
			pending: []Job{pend(1, 1, 4, model("1g.10gb")), pend(2, 1, 1)},
			starts:  []int64{1},
			waits:   map[int64]string{2: "user_quota: user quota reached 1/1 GPUs"},
		},
		"a slice over the cap waits, worded in GPUs": {
			s:       mkMIG(),
			users:   capped(1),
			running: []Job{run(90, 1, time.Hour, time.Hour, ids(10))},
			pending: []Job{pend(1, 1, 2, model("1g.10gb"))},
			waits:   map[int64]string{1: "user_quota: user quota reached 1/1 GPUs"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tc.s
			s.Users, s.Running, s.Pending = tc.users, tc.running, tc.pending
			pl := Schedule(s, cfg("fcfs"))
			var starts []int64
			for _, st := range pl.Starts {
				starts = append(starts, st.JobID)
			}
			if d := cmp.Diff(tc.starts, starts); d != "" {
				t.Errorf("starts (-want +got):\n%s", d)
			}
			got := codesOf(pl)
			for id := range got {
				if _, ok := tc.waits[id]; !ok {
					delete(got, id)
				}
			}
			if d := cmp.Diff(tc.waits, got); d != "" {
				t.Errorf("explanations (-want +got):\n%s", d)
			}
		})
	}
}

// TestFairShareSizeByFraction: the fairshare policy's size factor counts a
// share job as its fraction of a GPU, not as one GPU.
func TestFairShareSizeByFraction(t *testing.T) {
	t.Parallel()
	s := mkShared() // one node of 10 devices: GPUs 0, 1 and 8 slots
	s.Running = []Job{run(90, 9, time.Hour, time.Hour, ids(10, 11, 120, 121, 122, 123, 130, 131, 132, 133))}
	s.Pending = []Job{pend(1, 1, 1), pend(2, 1, 1, share(0.25))}
	c := cfg("fairshare", func(c *Config) {
		c.FairShare.WeightFairShare, c.FairShare.WeightAge, c.FairShare.WeightPriority, c.FairShare.WeightSize = 0, 0, 0, 1
	})
	why := whyOf(Schedule(s, c))
	if got, want := why[1].Score, 1-1.0/10; math.Abs(got-want) > 1e-9 {
		t.Errorf("a 1-GPU job's size factor %g, want %g", got, want)
	}
	if got, want := why[2].Score, 1-0.25/10; math.Abs(got-want) > 1e-9 {
		t.Errorf("a quarter share's size factor %g, want %g", got, want)
	}
}
