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

func task(array int64, most int) jobOpt {
	return func(j *Job) { j.ArrayID, j.ArrayMaxRunning = array, most }
}

// TestArrayLimit: an array with %N never has more than N tasks holding
// GPUs, counting those running (stopping ones too) and those started in
// the same pass; the tasks beyond wait, saying so, and block nobody; other
// arrays and jobs go on.
func TestArrayLimit(t *testing.T) {
	t.Parallel()
	s := mk(2, 4)
	s.Running = []Job{run(50, 1, time.Minute, time.Hour, ids(10), task(50, 3)),
		run(51, 1, time.Minute, time.Hour, ids(11), task(50, 3), stopping())}
	for id := int64(52); id < 60; id++ { // tasks 52…59 of array 50: one more may start
		s.Pending = append(s.Pending, pend(id, 1, 1, task(50, 3)))
	}
	s.Pending = append(s.Pending, pend(60, 2, 1, task(60, 0)), pend(61, 2, 1, task(60, 0)), pend(62, 3, 1))
	for _, c := range []Config{cfg("fcfs"), DefaultConfig()} {
		pl := Schedule(s, c)
		started := map[int64]bool{}
		for _, st := range pl.Starts {
			started[st.JobID] = true
		}
		n := 0
		for id := int64(52); id < 60; id++ {
			if started[id] {
				n++
			}
		}
		if n != 1 || !started[60] || !started[61] || !started[62] {
			t.Errorf("%s: started %v, want one task of array 50 and jobs 60, 61, 62", c.Policy, started)
		}
		why := whyOf(pl)
		for id := int64(52); id < 60; id++ {
			if e, ok := why[id]; ok && (e.Code != ReasonArrayLimit || e.Reason != "array 50 runs at most 3 of its tasks at once (%3); 3 run now") {
				t.Errorf("%s: task %d: %s %q", c.Policy, id, e.Code, e.Reason)
			}
		}
	}
}
