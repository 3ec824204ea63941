package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPreemption checks the choice of victims: least work lost, only
// preemptible jobs of strictly lower priority past MinRuntime, never for a
// job held by quota, and only when it makes the head placeable.
func TestPreemption(t *testing.T) {
	t.Parallel()
	low := func(id int64, ran time.Duration, gpus ...int64) Job {
		return run(id, 9, ran, 10*time.Hour, gpus, prio(PriorityLow), preemptible())
	}
	stoppingLow := func(id int64, ran time.Duration, gpus ...int64) Job {
		return run(id, 9, ran, 10*time.Hour, gpus, prio(PriorityLow), preemptible(), stopping())
	}
	noAging := cfg("priority", func(c *Config) { c.AgingPerHour = 0 })
	cases := map[string]struct {
		c       Config
		users   map[int64]Principal
		running []Job
		pending []Job
		victims []int64
		waits   map[int64]string
	}{
		"least GPU-seconds lost": {
			c: noAging,
			// A: 2 GPUs × 1h = 7200; B: 1 × 3h = 10800; C: 1 × 1h = 3600.
			running: []Job{low(90, time.Hour, 10, 11), low(91, 3*time.Hour, 12), low(92, time.Hour, 13)},
			pending: []Job{pend(1, 1, 2, prio(PriorityHigh))},
			victims: []int64{90}, // {A} 7200 < {B, C} 14400
			waits:   map[int64]string{1: "preempting: stopping 1 lower-priority job (90) to free GPUs for it; starts once they stop"},
		},
		"one GPU: the cheapest single job": {
			c:       noAging,
			running: []Job{low(90, time.Hour, 10, 11), low(91, 3*time.Hour, 12), low(92, time.Hour, 13)},
			pending: []Job{pend(1, 1, 1, prio(PriorityHigh))},
			victims: []int64{92},
			waits:   map[int64]string{1: "preempting: stopping 1 lower-priority job (92) to free GPUs for it; starts once they stop"},
		},
		"several victims when one is not enough": {
			c:       noAging,
			running: []Job{low(90, time.Hour, 10, 11), low(91, 3*time.Hour, 12), low(92, time.Hour, 13)},
			pending: []Job{pend(1, 1, 3, prio(PriorityHigh))},
			victims: []int64{90, 92},
			waits:   map[int64]string{1: "preempting: stopping 2 lower-priority jobs (90, 92) to free GPUs for it; starts once they stop"},
		},
		"MinRuntime protects a job that just started": {
			c:       noAging,
			running: []Job{low(90, time.Hour, 10, 11), low(91, 3*time.Hour, 12), low(92, 5*time.Minute, 13)},
			pending: []Job{pend(1, 1, 1, prio(PriorityHigh))},
			victims: []int64{90}, // 7200 < 10800; 92 is too young
			waits:   map[int64]string{1: "preempting: stopping 1 lower-priority job (90) to free GPUs for it; starts once they stop"},
		},
		"never a non-preemptible job or one of equal priority": {
			c: noAging,
			running: []Job{run(90, 9, time.Hour, time.Hour, ids(10, 11), prio(PriorityLow)),
				run(91, 9, time.Hour, time.Hour, ids(12, 13), prio(PriorityHigh), preemptible())},
			pending: []Job{pend(1, 1, 1, prio(PriorityHigh))},
			waits:   map[int64]string{1: "no_capacity: needs 1 GPU; 0 free"},
		},
		"base priority, not aged priority": {
			c:       cfg("priority"),
			running: []Job{run(90, 9, time.Hour, time.Hour, ids(10, 11, 12, 13), prio(PriorityNormal), preemptible())},
			pending: []Job{pend(1, 1, 1, prio(PriorityNormal), ago(48*time.Hour))},
			waits:   map[int64]string{1: "no_capacity: needs 1 GPU; 0 free"},
		},
		"never for a job held by quota": {
			c:       noAging,
			users:   map[int64]Principal{1: {GPUCap: 1}},
			running: []Job{low(90, time.Hour, 10, 11, 12), run(91, 1, time.Hour, time.Hour, ids(13))},
			pending: []Job{pend(1, 1, 1, prio(PriorityCritical))},
			waits:   map[int64]string{1: "user_quota: user quota reached 1/1 GPUs"},
		},
		"not when it would not make the head fit": {
			c:       noAging,
			running: []Job{low(90, time.Hour, 10, 11), run(91, 9, time.Hour, time.Hour, ids(12, 13))},
			pending: []Job{pend(1, 1, 4, prio(PriorityHigh))},
			waits:   map[int64]string{1: "no_capacity: needs 4 GPUs; 0 free"},
		},
		"a stop in flight frees the GPUs the head needs: nothing more is stopped": {
			c: noAging,
			// 90 is stopping already; 91 is an eligible victim, but 90's
			// GPUs are enough.
			running: []Job{stoppingLow(90, time.Hour, 10, 11), low(91, time.Hour, 12, 13)},
			pending: []Job{pend(1, 1, 2, prio(PriorityHigh))},
			waits:   map[int64]string{1: "preempting: waiting for job 90 to stop and free its GPUs; starts once it has"},
		},
		"a stopping job is never chosen again: the rest comes from a new victim": {
			c:       noAging,
			running: []Job{stoppingLow(90, time.Hour, 10), low(91, time.Hour, 11), low(92, 2*time.Hour, 12, 13)},
			pending: []Job{pend(1, 1, 2, prio(PriorityHigh))},
			victims: []int64{91},
			waits:   map[int64]string{1: "preempting: stopping 1 lower-priority job (91) to free GPUs for it; starts once they stop"},
		},
		"off unless configured": {
			c:       cfg("priority-backfill", func(c *Config) { c.Preemption = false }),
			running: []Job{low(90, time.Hour, 10, 11, 12, 13)},
			pending: []Job{pend(1, 1, 1, prio(PriorityHigh))},
			waits:   map[int64]string{1: "no_capacity: needs 1 GPU; 0 free"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mk(1, 4)
			s.Users, s.Running, s.Pending = tc.users, tc.running, tc.pending
			pl := Schedule(s, tc.c)
			var victims []int64
			for _, p := range pl.Preemptions {
				victims = append(victims, p.JobID)
				if p.ForJobID != 1 {
					t.Errorf("preemption %+v is not for job 1", p)
				}
			}
			if d := cmp.Diff(tc.victims, victims); d != "" {
				t.Errorf("victims (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.waits, codesOf(pl)); d != "" {
				t.Errorf("explanations (-want +got):\n%s", d)
			}
			if len(pl.Starts) != 0 {
				t.Errorf("starts %v, want none: the head waits for the GPUs to be released", pl.Starts)
			}
		})
	}
}

// TestPreemptionHoldsTheGPUs checks that jobs behind a preempting head do
// not take the free GPUs it counts on, and that it is expected to start now.
func TestPreemptionHoldsTheGPUs(t *testing.T) {
	t.Parallel()
	s := mk(1, 4)
	s.Running = []Job{run(90, 9, time.Hour, 5*time.Hour, ids(10, 11), prio(PriorityLow), preemptible())}
	s.Pending = []Job{pend(1, 1, 4, prio(PriorityCritical)), pend(2, 2, 1, prio(PriorityLow), est(time.Minute))}
	pl := Schedule(s, cfg("priority-backfill", func(c *Config) { c.AgingPerHour = 0 }))
	want := Plan{
		Preemptions: []Preemption{{JobID: 90, ForJobID: 1, Reason: "preempted for job 1 (priority 4), which needs 4 GPUs", Rule: RulePriority}},
		Pending: []Explanation{
			{JobID: 1, Position: 1, Code: ReasonPreempting, Score: 4, EstimatedStart: t0,
				Reason: "stopping 1 lower-priority job (90) to free GPUs for it; starts once they stop"},
			{JobID: 2, Position: 2, Code: ReasonReservedForHead, Score: 1, EstimatedStart: at(time.Hour), At: t0,
				Reason: "would delay the next job's reserved start at 2025-06-02T10:00:00Z"},
		},
	}
	if d := cmp.Diff(want, pl, cmpPlan); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
}
