package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// waited is the fcfs score of a job made by pend: hours since it was
// submitted.
func waited(id int64) float64 { return (time.Hour - time.Duration(id)*time.Second).Hours() }

// TestGolden checks whole plans of tricky cases, written out literally.
func TestGolden(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		s    func() Snapshot
		c    Config
		want Plan
	}{
		// Node 1 has 3 free GPUs until 11:00, node 2 has 4 free. The 8-GPU
		// head reserves node 1 from 11:00; a long 4-GPU job backfills on
		// node 2, a short one on node 1; a long 1-GPU job would take a
		// GPU of the head's and waits.
		"fragmentation across two nodes with backfill": {
			s: func() Snapshot {
				s := mk(2, 8)
				s.Running = []Job{run(90, 9, time.Hour, time.Hour, gpuRange(10, 14)), run(91, 9, time.Hour, 3*time.Hour, gpuRange(20, 23))}
				s.Pending = []Job{pend(1, 1, 8, prio(4), est(2*time.Hour)), pend(2, 2, 4, prio(3), est(5*time.Hour)),
					pend(3, 3, 2, prio(3), est(30*time.Minute)), pend(4, 4, 2, prio(2), est(3*time.Hour)),
					pend(5, 5, 1, prio(2), est(2*time.Hour)), pend(6, 6, 6, prio(1), est(time.Hour), multi())}
				return s
			},
			c: cfg("priority-backfill", func(c *Config) { c.AgingPerHour, c.Preemption = 0, false }),
			want: Plan{
				Starts: []Start{{JobID: 2, GPUIDs: gpuRange(24, 27), Backfilled: true}, {JobID: 3, GPUIDs: ids(15, 16), Backfilled: true}},
				Pending: []Explanation{
					{JobID: 1, Position: 1, Code: ReasonNoCapacity, Reason: "needs 8 GPUs; 7 free", EstimatedStart: at(time.Hour), Score: 4},
					{JobID: 4, Position: 2, Code: ReasonNoCapacity, Reason: "needs 2 GPUs; 1 free", EstimatedStart: at(3 * time.Hour), Score: 2},
					{JobID: 5, Position: 3, Code: ReasonReservedForHead, Reason: "would delay the next job's reserved start at 2025-06-02T11:00:00Z",
						At: at(time.Hour), EstimatedStart: at(3 * time.Hour), Score: 2},
					{JobID: 6, Position: 4, Code: ReasonNoCapacity, Reason: "needs 6 GPUs; 1 free", EstimatedStart: at(3 * time.Hour), Score: 1},
				},
			},
		},
		// Ana's hold (GPUs 14, 15 until 10:30): ana's short job takes it
		// at once, ahead of the queue (not a backfill); a 4-GPU job then
		// finds 3 GPUs free and becomes the head at 10:30; a short job
		// backfills, a long one would delay the head, and a user at their
		// cap waits for their own job to end.
		"a hold, backfill and a quota at once": {
			s: func() Snapshot {
				s := mk(1, 8)
				s.Users = map[int64]Principal{2: {GPUCap: 1}}
				s.Running = []Job{run(90, 3, time.Hour, 2*time.Hour, gpuRange(10, 12)), run(91, 2, time.Hour, time.Hour, ids(13))}
				s.Bookings = []Booking{{ID: 1, UserID: 1, UserName: "ana", Hold: true, GPUCount: 2,
					Start: at(-time.Minute), End: at(30 * time.Minute)}}
				s.Pending = []Job{pend(1, 2, 1), pend(2, 4, 4), pend(3, 1, 1, est(20*time.Minute)),
					pend(4, 5, 1, est(20*time.Minute)), pend(5, 5, 1, est(3*time.Hour))}
				return s
			},
			c: cfg("fcfs", func(c *Config) { c.Backfill = true }),
			want: Plan{
				Starts: []Start{{JobID: 3, GPUIDs: ids(14)}, {JobID: 4, GPUIDs: ids(16), Backfilled: true}},
				Pending: []Explanation{
					{JobID: 1, Position: 1, Code: ReasonUserQuota, Reason: "user quota reached 1/1 GPUs",
						EstimatedStart: at(time.Hour), Score: waited(1)},
					{JobID: 2, Position: 2, Code: ReasonNoCapacity, Reason: "needs 4 GPUs; 3 free",
						EstimatedStart: at(30 * time.Minute), Score: waited(2)},
					{JobID: 5, Position: 3, Code: ReasonReservedForHead, Reason: "would delay the next job's reserved start at 2025-06-02T10:30:00Z",
						At: at(30 * time.Minute), EstimatedStart: at(90 * time.Minute), Score: waited(5)},
				},
			},
		},
		// Bo has booked all four GPUs from 12:00 to 14:00. A 3-hour job
		// cannot start before 14:00 and becomes the head; short jobs that
		// end before 12:00 backfill; bo's own job may run inside his
		// booking; a 5-hour job waits for the head to finish.
		"a future booking shapes the head's reservation": {
			s: func() Snapshot {
				s := mk(1, 4)
				s.Bookings = []Booking{{ID: 1, UserID: 2, UserName: "bo", GPUCount: 4, Start: at(2 * time.Hour), End: at(4 * time.Hour)}}
				s.Pending = []Job{pend(1, 1, 4, est(3*time.Hour)), pend(2, 3, 2, est(time.Hour)), pend(3, 2, 4, est(2*time.Hour)),
					pend(4, 3, 1, est(90*time.Minute)), pend(5, 4, 1, est(5*time.Hour))}
				return s
			},
			c: cfg("fcfs", func(c *Config) { c.Backfill = true }),
			want: Plan{
				Starts: []Start{{JobID: 2, GPUIDs: ids(10, 11), Backfilled: true}, {JobID: 4, GPUIDs: ids(12), Backfilled: true}},
				Pending: []Explanation{
					{JobID: 1, Position: 1, Code: ReasonBooked, Reason: "GPUs booked by bo from 2025-06-02T12:00:00Z until 2025-06-02T14:00:00Z",
						At: at(4 * time.Hour), EstimatedStart: at(4 * time.Hour), Score: waited(1)},
					{JobID: 3, Position: 2, Code: ReasonNoCapacity, Reason: "needs 4 GPUs; 2 free",
						EstimatedStart: at(90 * time.Minute), Score: waited(3)},
					{JobID: 5, Position: 3, Code: ReasonBooked, Reason: "GPUs booked by bo from 2025-06-02T12:00:00Z until 2025-06-02T14:00:00Z",
						At: at(4 * time.Hour), EstimatedStart: at(7 * time.Hour), Score: waited(5)},
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, Schedule(tc.s(), tc.c), cmpPlan); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
		})
	}
}
