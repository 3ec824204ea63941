package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Under contention a hold still does what the client agent promised: the
// owner's next matching job, estimated to run past the hold (so it would
// delay the head), starts at once on the held GPUs, ahead of
// another user's job that waits for them.
func TestHoldOwnersJobStartsAheadOfTheHead(t *testing.T) {
	t.Parallel()
	for _, backfill := range []bool{true, false} {
		s := mk(1, 2)
		s.Bookings = []Booking{{ID: 1, UserID: 1, UserName: "ana", Hold: true, GPUCount: 2,
			Start: at(-time.Minute), End: at(14 * time.Minute)}}
		s.Pending = []Job{pend(1, 2, 1), pend(2, 1, 2), pend(3, 1, 1)}
		c := cfg("fcfs", func(c *Config) { c.Backfill = backfill })
		pl := Schedule(s, c)
		want := []Start{{JobID: 2, GPUIDs: ids(10, 11)}}
		if diff := cmp.Diff(want, pl.Starts); diff != "" {
			t.Fatalf("backfill %v: starts (-want +got):\n%s", backfill, diff)
		}
		if len(pl.Pending) != 2 || pl.Pending[0].JobID != 1 || !pl.Pending[0].EstimatedStart.Equal(at(time.Hour)) {
			t.Fatalf("backfill %v: bo's job should wait for ana's job: %+v", backfill, pl.Pending)
		}
	}
}

// A job bigger than the hold does not jump the queue through it.
func TestHoldDoesNotCarryBiggerJobs(t *testing.T) {
	t.Parallel()
	s := mk(1, 4)
	s.Running = []Job{run(90, 3, time.Hour, time.Hour, ids(12, 13))}
	s.Bookings = []Booking{{ID: 1, UserID: 1, UserName: "ana", Hold: true, GPUCount: 1,
		Start: at(-time.Minute), End: at(14 * time.Minute)}}
	s.Pending = []Job{pend(1, 2, 2), pend(2, 1, 2)}
	pl := Schedule(s, cfg("fcfs"))
	if len(pl.Starts) != 0 {
		t.Fatalf("starts %+v, want none: bo's job is first and ana's does not fit her hold", pl.Starts)
	}
}
