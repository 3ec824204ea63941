package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func after(kind string, id int64) jobOpt {
	return func(j *Job) { j.WaitsFor = append(j.WaitsFor, Dependency{Kind: kind, JobID: id}) }
}

// TestDependencies: a job that waits for another's end does not start even
// with GPUs free, is explained by the condition on the lowest job ID, and
// blocks nobody: the jobs behind it start, under strict order too.
func TestDependencies(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		pending []Job
		starts  []Start
		waits   []Explanation
	}{
		"afterok waits, the next job starts": {
			pending: []Job{pend(1, 1, 2, after(DependOK, 90)), pend(2, 1, 2)},
			starts:  []Start{{JobID: 2, GPUIDs: ids(10, 11)}},
			waits: []Explanation{{JobID: 1, Position: 1, Code: ReasonDependency,
				Reason: "waits for job 90 to complete successfully (afterok)"}},
		},
		"several conditions: the lowest job first, and how many more": {
			pending: []Job{pend(1, 1, 1, after(DependAny, 95), after(DependNotOK, 91), after(DependSingleton, 93))},
			waits: []Explanation{{JobID: 1, Position: 1, Code: ReasonDependency,
				Reason: "waits for job 91 to fail, be canceled or time out (afternotok), and 2 more"}},
		},
		"a met dependency (dropped by the caller) starts": {
			pending: []Job{pend(1, 1, 4)},
			starts:  []Start{{JobID: 1, GPUIDs: ids(10, 11, 12, 13)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mk(1, 4)
			s.Pending = tc.pending
			for _, c := range []Config{cfg("fcfs"), cfg("fcfs", func(c *Config) { c.Backfill = true }), DefaultConfig()} {
				pl := Schedule(s, c)
				for i := range pl.Pending {
					pl.Pending[i].Score, pl.Pending[i].Standing = 0, ""
				}
				want := Plan{Starts: tc.starts, Pending: tc.waits}
				if d := cmp.Diff(want, pl, cmpPlan); d != "" {
					t.Errorf("%s: plan (-want +got):\n%s", c.Policy, d)
				}
			}
		})
	}
	// A job held by a dependency never takes its owner's hold either.
	s := mk(1, 4)
	s.Bookings = []Booking{{ID: 7, UserID: 1, Hold: true, GPUCount: 2, Start: at(-time.Minute), End: at(time.Hour)}}
	s.Pending = []Job{pend(1, 1, 2, after(DependOK, 90))}
	if pl := Schedule(s, cfg("fcfs")); len(pl.Starts) != 0 || pl.Pending[0].Code != ReasonDependency {
		t.Errorf("a dependent job on its owner's hold: %+v", pl)
	}
}
