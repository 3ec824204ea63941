package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestShareWaitsAndPreempts: a share job with no room is given an
// estimated start (when a shared GPU has its slots free, by the running
// jobs' estimates and the share jobs before it) and, when the policy
// preempts, stops lower-priority share jobs as a whole-GPU head stops
// lower-priority jobs: the cheapest that free its slots on one shared GPU,
// never one of equal priority, not preemptible or too young, never a
// whole-GPU job, and one share job per pass.
func TestShareWaitsAndPreempts(t *testing.T) {
	t.Parallel()
	// mkShared: GPUs 2 and 3 are shared four ways, slots 120–123, 130–133.
	shareRun := func(id int64, p int, ran, left time.Duration, gpus []int64, opts ...jobOpt) Job {
		return run(id, 9, ran, left, gpus, append([]jobOpt{share(float64(len(gpus)) / 4), prio(p)}, opts...)...)
	}
	full := func(opts ...jobOpt) []Job { // every slot held, ending at 1h, 3h and 2h
		return []Job{shareRun(90, PriorityLow, time.Hour, time.Hour, ids(120, 121), opts...),
			shareRun(91, PriorityLow, 3*time.Hour, 3*time.Hour, ids(122, 123), opts...),
			shareRun(92, PriorityNormal, time.Hour, 2*time.Hour, ids(130, 131, 132, 133))}
	}
	const noRoom = ReasonNoCapacity + ": needs 0.5 of a GPU; no shared GPU has that much free now"
	backfill := cfg("priority-backfill", func(c *Config) { c.AgingPerHour = 0 })
	cases := map[string]struct {
		c       Config
		running []Job
		pending []Job
		victims []int64
		why     map[int64]string
		eta     map[int64]time.Time
	}{
		"an estimate: when a shared GPU frees the slots, after the share jobs before it": {
			c:       backfill,
			running: full(),
			pending: []Job{pend(1, 1, 1, share(0.5)), pend(2, 2, 1, share(0.5)), pend(3, 3, 1, share(1))},
			why:     map[int64]string{1: noRoom, 2: noRoom, 3: ReasonNoCapacity + ": needs 1 of a GPU; no shared GPU has that much free now"},
			// 1 takes 120–121 at 1h (90 ends) for its hour; 2 then finds
			// two slots at 2h (120–121 again, before 130–133, free as 92
			// ends); 3 the whole of GPU 3 at 2h, not GPU 2 at 3h.
			eta: map[int64]time.Time{1: at(time.Hour), 2: at(2 * time.Hour), 3: at(2 * time.Hour)},
		},
		"the cheapest lower-priority share job is stopped": {
			c:       backfill,
			running: full(preemptible()),
			pending: []Job{pend(1, 1, 1, share(0.5), prio(PriorityHigh))},
			victims: []int64{90}, // 2 slots × 1h < 2 slots × 3h; 92 is not lower
			why:     map[int64]string{1: ReasonPreempting + ": stopping 1 lower-priority job (90) to free GPUs for it; starts once they stop"},
			eta:     map[int64]time.Time{1: t0},
		},
		"a whole shared GPU takes two victims": {
			c:       backfill,
			running: full(preemptible()),
			pending: []Job{pend(1, 1, 1, share(1), prio(PriorityHigh))},
			victims: []int64{90, 91},
			why:     map[int64]string{1: ReasonPreempting + ": stopping 2 lower-priority jobs (90, 91) to free GPUs for it; starts once they stop"},
		},
		"not when the policy does not preempt": {
			c:       cfg("priority-backfill", func(c *Config) { c.Preemption = false }),
			running: full(preemptible()),
			pending: []Job{pend(1, 1, 1, share(0.5), prio(PriorityHigh))},
			why:     map[int64]string{1: noRoom},
			eta:     map[int64]time.Time{1: at(time.Hour)},
		},
		"never equal priority nor a job that is not preemptible": {
			c:       backfill,
			running: full(),
			pending: []Job{pend(1, 1, 1, share(0.5), prio(PriorityNormal))},
			why:     map[int64]string{1: noRoom},
		},
		"never a whole-GPU job: slots compete only with slots": {
			c:       backfill,
			running: append(full(), run(80, 9, time.Hour, time.Hour, ids(10, 11), prio(PriorityLow), preemptible())),
			pending: []Job{pend(1, 1, 1, share(0.5), prio(PriorityHigh))},
			why:     map[int64]string{1: noRoom},
		},
		"a share job stopping already is waited for": {
			c: backfill,
			running: []Job{shareRun(90, PriorityLow, time.Hour, time.Hour, ids(120, 121), preemptible(), stopping()),
				shareRun(91, PriorityLow, time.Hour, time.Hour, ids(122, 123), preemptible()),
				shareRun(92, PriorityNormal, time.Hour, 2*time.Hour, ids(130, 131, 132, 133))},
			pending: []Job{pend(1, 1, 1, share(0.5), prio(PriorityHigh))},
			why:     map[int64]string{1: ReasonPreempting + ": waiting for job 90 to stop and free its GPUs; starts once it has"},
		},
		"one share job preempts per pass": {
			c:       backfill,
			running: full(preemptible()),
			pending: []Job{pend(1, 1, 1, share(0.5), prio(PriorityHigh)), pend(2, 2, 1, share(0.5), prio(PriorityHigh))},
			victims: []int64{90},
			why: map[int64]string{1: ReasonPreempting + ": stopping 1 lower-priority job (90) to free GPUs for it; starts once they stop",
				2: noRoom},
			// 1 holds 90's slots from now for its hour; 2 is expected on
			// them after it.
			eta: map[int64]time.Time{1: t0, 2: at(time.Hour)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mkShared()
			s.Running, s.Pending = tc.running, tc.pending
			pl := Schedule(s, tc.c)
			var victims []int64
			for _, p := range pl.Preemptions {
				victims = append(victims, p.JobID)
				if p.ForJobID != 1 || p.Rule != RulePriority || p.Reason != "preempted for job 1 (priority 3), which needs "+shareWords(&tc.pending[0]) {
					t.Errorf("preemption %+v", p)
				}
			}
			if d := cmp.Diff(tc.victims, victims); d != "" {
				t.Errorf("victims (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.why, codesOf(pl)); d != "" {
				t.Errorf("explanations (-want +got):\n%s", d)
			}
			if len(pl.Starts) != 0 {
				t.Errorf("starts %v, want none", pl.Starts)
			}
			for id, want := range tc.eta {
				if got := whyOf(pl)[id].EstimatedStart; !got.Equal(want) {
					t.Errorf("job %d estimated at %v, want %v", id, got, want)
				}
			}
		})
	}
}
