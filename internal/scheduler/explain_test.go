package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestExplanations checks the code and sentence of every reason the core
// gives, and when each job is expected to start.
func TestExplanations(t *testing.T) {
	t.Parallel()
	type want struct {
		code, reason string
		eta          time.Duration // from t0; -1: none
	}
	cases := map[string]struct {
		s       Snapshot
		c       Config
		users   map[int64]Principal
		running []Job
		pending []Job
		want    map[int64]want // started jobs: code "started"
	}{
		"no capacity, expected when running jobs end": {
			s: mk(1, 4), c: cfg("fcfs"),
			running: []Job{run(90, 9, time.Hour, 30*time.Minute, ids(10, 11)), run(91, 9, time.Hour, 2*time.Hour, ids(12))},
			pending: []Job{pend(1, 1, 3), pend(2, 1, 8, model("H100"), mem(1)), pend(3, 1, 2, model("nope"))},
			want: map[int64]want{
				1: {ReasonNoCapacity, "needs 3 GPUs; 1 free", 30 * time.Minute},
				2: {ReasonNoMatchingGPU, `needs 8 "H100" GPUs with at least 1 MiB on one node; the largest node has 4`, -1},
				3: {ReasonNoMatchingGPU, `no GPU in the cluster matches model "nope"`, -1},
			},
		},
		"fragmented": {
			s: mk(2, 4), c: cfg("fcfs"),
			running: []Job{run(90, 9, time.Hour, time.Hour, ids(10, 11)), run(91, 9, time.Hour, 3*time.Hour, ids(20, 21))},
			pending: []Job{pend(1, 1, 4)},
			want:    map[int64]want{1: {ReasonFragmented, "needs 4 GPUs on one node; at most 2 free on any node", time.Hour}},
		},
		"memory nowhere": {
			s: mk(1, 1), c: cfg("fcfs"),
			pending: []Job{pend(1, 1, 1, mem(1<<20))},
			want:    map[int64]want{1: {ReasonNoMatchingGPU, "no GPU in the cluster has 1048576 MiB of memory", -1}},
		},
		"multi-node larger than the cluster": {
			s: mk(2, 2), c: cfg("fcfs"),
			pending: []Job{pend(1, 1, 5, multi())},
			want:    map[int64]want{1: {ReasonNoMatchingGPU, "needs 5 GPUs; the cluster has 4", -1}},
		},
		"fits on paper, not on the usable GPUs: no estimate, blocks nobody": {
			s: func() Snapshot { s := mk(1, 2); s.GPUs[0].Healthy = false; return s }(), c: cfg("fcfs"),
			pending: []Job{pend(1, 1, 2), pend(2, 1, 1)},
			want: map[int64]want{
				1: {ReasonNoCapacity, "needs 2 GPUs on one node; at most 1 usable on any node (the others are unhealthy, drained, foreign or down)", -1},
				2: {"started", "", 0},
			},
		},
		"behind higher-priority jobs": {
			s: mk(1, 2), c: cfg("priority", func(c *Config) { c.Preemption = false }),
			running: []Job{run(90, 9, time.Hour, time.Hour, ids(10))},
			pending: []Job{pend(1, 1, 2, prio(4)), pend(2, 1, 2, prio(3)), pend(3, 1, 1, prio(2))},
			want: map[int64]want{
				1: {ReasonNoCapacity, "needs 2 GPUs; 1 free", time.Hour},
				2: {ReasonNoCapacity, "needs 2 GPUs; 1 free", 2 * time.Hour},
				3: {ReasonBehindHigher, "behind 2 higher-priority jobs", 3 * time.Hour},
			},
		},
		"behind shorter jobs": {
			s: mk(1, 2), c: cfg("sjf"),
			running: []Job{run(90, 9, time.Hour, time.Hour, ids(10))},
			pending: []Job{pend(1, 1, 2, est(time.Minute)), pend(2, 1, 1, est(time.Hour))},
			want: map[int64]want{
				1: {ReasonNoCapacity, "needs 2 GPUs; 1 free", time.Hour},
				2: {ReasonBehindHigher, "behind 1 shorter job", time.Hour + time.Minute},
			},
		},
		"quota: expected when the user's own jobs end": {
			s: mk(1, 4), c: cfg("fcfs"),
			users:   map[int64]Principal{1: {GPUCap: 2}},
			running: []Job{run(90, 1, time.Hour, 90*time.Minute, ids(10, 11))},
			pending: []Job{pend(1, 1, 2)},
			want:    map[int64]want{1: {ReasonUserQuota, "user quota reached 2/2 GPUs", 90 * time.Minute}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tc.s
			s.Users, s.Running, s.Pending = tc.users, tc.running, tc.pending
			pl := Schedule(s, tc.c)
			got := map[int64]want{}
			for _, e := range pl.Pending {
				w := want{e.Code, e.Reason, -1}
				if !e.EstimatedStart.IsZero() {
					w.eta = e.EstimatedStart.Sub(t0)
				}
				got[e.JobID] = w
			}
			for id := range startsOf(pl) {
				got[id] = want{"started", "", 0}
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("explanations (-want +got):\n%s", d)
			}
		})
	}
}

// TestPositions checks that positions count only the jobs still waiting,
// in queue order, 1 first.
func TestPositions(t *testing.T) {
	t.Parallel()
	s := mk(1, 2)
	s.Pending = []Job{pend(1, 1, 1), pend(2, 1, 4), pend(3, 1, 1), pend(4, 1, 2), pend(5, 1, 3)}
	pl := Schedule(s, cfg("fcfs", func(c *Config) { c.Backfill = true }))
	var got [][2]int64
	for _, e := range pl.Pending {
		got = append(got, [2]int64{e.JobID, int64(e.Position)})
	}
	// 2 and 5 can never fit a 2-GPU node; 1 and 3 start; 4 waits.
	if d := cmp.Diff([][2]int64{{2, 1}, {4, 2}, {5, 3}}, got); d != "" {
		t.Errorf("positions (-want +got):\n%s", d)
	}
}
