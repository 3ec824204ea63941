package scheduler

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func limit(d time.Duration) jobOpt { return func(j *Job) { j.TimeLimit = d } }

// TestBackfillOnTimeLimit: a job with no estimate is planned on its time
// limit (it is stopped there), so a short limit backfills where the
// default duration would not; an estimate longer than the limit counts as
// the limit; a running job with a limit ends by it.
func TestBackfillOnTimeLimit(t *testing.T) {
	t.Parallel()
	oneNode := mk(1, 4)
	oneNode.Running = []Job{run(90, 9, time.Hour, 2*time.Hour, ids(10, 11))} // ends 12:00
	limited := mk(1, 4)
	// Estimated to run 10 h more, but its limit of 2 h ends it at 11:00.
	limited.Running = []Job{run(90, 9, time.Hour, 10*time.Hour, ids(10, 11), limit(2*time.Hour))}
	backfill := cfg("fcfs", func(c *Config) { c.Backfill = true })
	head := Explanation{JobID: 1, Position: 1, Code: ReasonNoCapacity, Reason: "needs 4 GPUs; 2 free", EstimatedStart: at(2 * time.Hour)}
	cases := map[string]struct {
		s       Snapshot
		pending []Job
		starts  []Start
		waits   []Explanation
	}{
		"no estimate, a 1 h limit: backfills": {
			s:       oneNode,
			pending: []Job{pend(1, 1, 4), pend(2, 2, 1, est(0), limit(time.Hour))},
			starts:  []Start{{JobID: 2, GPUIDs: ids(12), Backfilled: true}},
			waits:   []Explanation{head},
		},
		"no estimate, a 3 h limit: waits behind the head": {
			s:       oneNode,
			pending: []Job{pend(1, 1, 4), pend(2, 2, 1, est(0), limit(3*time.Hour))},
			waits: []Explanation{head,
				{JobID: 2, Position: 2, Code: ReasonReservedForHead, Reason: "would delay the next job's reserved start at 2025-06-02T12:00:00Z",
					At: at(2 * time.Hour), EstimatedStart: at(3 * time.Hour)}},
		},
		"an estimate beyond the limit counts as the limit": {
			s:       oneNode,
			pending: []Job{pend(1, 1, 4), pend(2, 2, 1, est(5*time.Hour), limit(30*time.Minute))},
			starts:  []Start{{JobID: 2, GPUIDs: ids(12), Backfilled: true}},
			waits:   []Explanation{head},
		},
		"a shorter estimate wins over the limit": {
			s:       oneNode,
			pending: []Job{pend(1, 1, 4), pend(2, 2, 1, est(time.Hour), limit(20*time.Hour))},
			starts:  []Start{{JobID: 2, GPUIDs: ids(12), Backfilled: true}},
			waits:   []Explanation{head},
		},
		"a running job ends at its limit": {
			s:       limited,
			pending: []Job{pend(1, 1, 4)},
			waits:   []Explanation{{JobID: 1, Position: 1, Code: ReasonNoCapacity, Reason: "needs 4 GPUs; 2 free", EstimatedStart: at(time.Hour)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tc.s
			s.Pending = tc.pending
			pl := Schedule(s, backfill)
			for i := range pl.Pending {
				pl.Pending[i].Score = 0
			}
			want := Plan{Starts: tc.starts, Pending: tc.waits}
			if d := cmp.Diff(want, pl, cmpPlan); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
		})
	}
}

// TestTimeLimitPolicy: the default applies when none is asked (else the
// maximum, as in Slurm; neither: unlimited), and more than the maximum is
// refused naming it.
func TestTimeLimitPolicy(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		p     TimeLimitPolicy
		asked time.Duration
		want  time.Duration
		over  bool
	}{
		"no policy, none asked":           {p: TimeLimitPolicy{}, want: 0},
		"no policy, asked":                {p: TimeLimitPolicy{}, asked: time.Hour, want: time.Hour},
		"default when none asked":         {p: TimeLimitPolicy{Default: Duration(2 * time.Hour)}, want: 2 * time.Hour},
		"asked under the max":             {p: TimeLimitPolicy{Max: Duration(4 * time.Hour)}, asked: time.Hour, want: time.Hour},
		"asked at the max":                {p: TimeLimitPolicy{Max: Duration(4 * time.Hour)}, asked: 4 * time.Hour, want: 4 * time.Hour},
		"asked over the max":              {p: TimeLimitPolicy{Max: Duration(4 * time.Hour)}, asked: 5 * time.Hour, over: true},
		"none asked, no default: the max": {p: TimeLimitPolicy{Max: Duration(4 * time.Hour)}, want: 4 * time.Hour},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.p.Limit(tc.asked)
			if tc.over {
				if !errors.Is(err, ErrOverMaxTimeLimit) {
					t.Fatalf("Limit(%s) = %s, %v; want ErrOverMaxTimeLimit", tc.asked, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Limit(%s) = %s, %v; want %s", tc.asked, got, err, tc.want)
			}
		})
	}
	c := DefaultConfig()
	c.TimeLimit = TimeLimitPolicy{Default: Duration(5 * time.Hour), Max: Duration(time.Hour)}
	if err := c.Validate(); err == nil {
		t.Error("a default over the maximum validated")
	}
}
