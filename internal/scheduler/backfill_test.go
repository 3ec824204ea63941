package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBackfill checks EASY backfill: behind a blocked head, a job starts
// only if it ends by the head's reserved start or keeps off its GPUs; in
// strict order nothing passes the head.
func TestBackfill(t *testing.T) {
	t.Parallel()
	oneNode := mk(1, 4)
	oneNode.Running = []Job{run(90, 9, time.Hour, 2*time.Hour, ids(10, 11))} // ends 12:00
	twoNodes := mk(2, 4)
	twoNodes.Running = []Job{run(90, 9, time.Hour, 2*time.Hour, ids(10, 11, 12)), // ends 12:00
		run(91, 9, time.Hour, 4*time.Hour, ids(20, 21, 22))} // ends 14:00
	backfill := cfg("fcfs", func(c *Config) { c.Backfill = true })
	cases := map[string]struct {
		s       Snapshot
		c       Config
		pending []Job
		starts  []Start
		waits   []Explanation
	}{
		"a short job backfills, a long one waits": {
			s: oneNode, c: backfill,
			pending: []Job{pend(1, 1, 4), pend(2, 2, 1, est(time.Hour)), pend(3, 3, 1, est(3*time.Hour))},
			starts:  []Start{{JobID: 2, GPUIDs: ids(12), Backfilled: true}},
			waits: []Explanation{
				{JobID: 1, Position: 1, Code: ReasonNoCapacity, Reason: "needs 4 GPUs; 2 free", EstimatedStart: at(2 * time.Hour)},
				{JobID: 3, Position: 2, Code: ReasonReservedForHead, Reason: "would delay the next job's reserved start at 2025-06-02T12:00:00Z",
					At: at(2 * time.Hour), EstimatedStart: at(3 * time.Hour)}, // after the head's hour
			},
		},
		"a job with no estimate counts as DefaultDuration (4h) and waits": {
			s: oneNode, c: backfill,
			pending: []Job{pend(1, 1, 4), pend(2, 2, 1, est(0))},
			waits: []Explanation{
				{JobID: 1, Position: 1, Code: ReasonNoCapacity, Reason: "needs 4 GPUs; 2 free", EstimatedStart: at(2 * time.Hour)},
				{JobID: 2, Position: 2, Code: ReasonReservedForHead, Reason: "would delay the next job's reserved start at 2025-06-02T12:00:00Z",
					At: at(2 * time.Hour), EstimatedStart: at(3 * time.Hour)},
			},
		},
		"a long job that keeps off the head's GPUs backfills": {
			s: twoNodes, c: backfill,
			pending: []Job{pend(1, 1, 4), pend(2, 2, 1, est(10*time.Hour))},
			starts:  []Start{{JobID: 2, GPUIDs: ids(23), Backfilled: true}},
			waits: []Explanation{
				{JobID: 1, Position: 1, Code: ReasonNoCapacity, Reason: "needs 4 GPUs; 2 free", EstimatedStart: at(2 * time.Hour)},
			},
		},
		"strict order: nothing passes the head": {
			s: oneNode, c: cfg("fcfs"),
			pending: []Job{pend(1, 1, 4), pend(2, 2, 1, est(time.Hour)), pend(3, 3, 1, est(time.Hour)), pend(4, 3, 2)},
			waits: []Explanation{
				{JobID: 1, Position: 1, Code: ReasonNoCapacity, Reason: "needs 4 GPUs; 2 free", EstimatedStart: at(2 * time.Hour)},
				{JobID: 2, Position: 2, Code: ReasonBehindHigher, Reason: "behind 1 earlier job", EstimatedStart: at(3 * time.Hour)},
				{JobID: 3, Position: 3, Code: ReasonBehindHigher, Reason: "behind 2 earlier jobs", EstimatedStart: at(3 * time.Hour)},
				{JobID: 4, Position: 4, Code: ReasonBehindHigher, Reason: "behind 3 earlier jobs", EstimatedStart: at(3 * time.Hour)},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tc.s
			s.Pending = tc.pending
			pl := Schedule(s, tc.c)
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
