package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBookings checks that bookings and holds keep other users off their
// GPUs for their windows and give their owners' jobs the GPUs first.
func TestBookings(t *testing.T) {
	t.Parallel()
	ana := func(gpus int, from, to time.Duration) Booking {
		return Booking{ID: 7, UserID: 1, UserName: "ana", GPUCount: gpus, Start: at(from), End: at(to)}
	}
	cases := map[string]struct {
		s        Snapshot
		c        Config
		running  []Job
		bookings []Booking
		pending  []Job
		starts   map[int64][]int64
		waits    map[int64]string
	}{
		"an active booking keeps others off": {
			s: mk(1, 2), c: cfg("fcfs"),
			bookings: []Booking{ana(2, -time.Hour, time.Hour)},
			pending:  []Job{pend(1, 2, 1)},
			starts:   map[int64][]int64{},
			waits:    map[int64]string{1: "booked: GPUs booked by ana until 2025-06-02T11:00:00Z"},
		},
		"the owner's job takes the booked GPUs at once, even behind a blocked job in strict order": {
			s: mk(1, 4), c: cfg("fcfs"),
			bookings: []Booking{ana(2, -time.Hour, time.Hour)},
			pending:  []Job{pend(1, 2, 4), pend(2, 1, 2)},
			starts:   map[int64][]int64{2: ids(10, 11)},
			waits:    map[int64]string{1: "booked: GPUs booked by ana until 2025-06-02T11:00:00Z"},
		},
		"others use the GPUs a booking does not need": {
			s: mk(1, 4), c: cfg("fcfs"),
			bookings: []Booking{ana(2, -time.Hour, time.Hour)},
			pending:  []Job{pend(1, 2, 2), pend(2, 2, 1)},
			starts:   map[int64][]int64{1: ids(12, 13)},
			waits:    map[int64]string{2: "booked: GPUs booked by ana until 2025-06-02T11:00:00Z"},
		},
		"a future booking admits a job that ends before it": {
			s: mk(1, 2), c: cfg("fcfs"),
			bookings: []Booking{ana(2, 2*time.Hour, 4*time.Hour)},
			pending:  []Job{pend(1, 2, 2, est(90*time.Minute))},
			starts:   map[int64][]int64{1: ids(10, 11)},
			waits:    map[int64]string{},
		},
		"a future booking blocks a job that would run into it": {
			s: mk(1, 2), c: cfg("fcfs"),
			bookings: []Booking{ana(2, 2*time.Hour, 4*time.Hour)},
			pending:  []Job{pend(1, 2, 1, est(3*time.Hour))},
			starts:   map[int64][]int64{},
			waits:    map[int64]string{1: "booked: GPUs booked by ana from 2025-06-02T12:00:00Z until 2025-06-02T14:00:00Z"},
		},
		"a future booking takes the GPUs that free up before it, leaving free ones to jobs": {
			s: mk(1, 4), c: cfg("fcfs"),
			running:  []Job{run(90, 3, time.Hour, time.Hour, ids(10, 11))}, // ends 11:00
			bookings: []Booking{ana(2, 2*time.Hour, 4*time.Hour)},
			pending:  []Job{pend(1, 2, 2, est(8*time.Hour))},
			starts:   map[int64][]int64{1: ids(12, 13)},
			waits:    map[int64]string{},
		},
		"a hold is taken by the owner's next matching job": {
			s: mk(1, 4), c: cfg("fcfs"),
			bookings: []Booking{{ID: 8, UserID: 1, UserName: "ana", Hold: true, GPUCount: 1, GPUIDs: ids(12),
				Start: at(-time.Minute), End: at(10 * time.Minute)}},
			pending: []Job{pend(1, 2, 3), pend(2, 1, 1)},
			starts:  map[int64][]int64{1: ids(10, 11, 13), 2: ids(12)},
			waits:   map[int64]string{},
		},
		"a hold is worded as held": {
			s: mk(1, 1), c: cfg("fcfs"),
			bookings: []Booking{{ID: 8, UserID: 1, UserName: "ana", Hold: true, GPUCount: 1,
				Start: at(-time.Minute), End: at(10 * time.Minute)}},
			pending: []Job{pend(1, 2, 1)},
			starts:  map[int64][]int64{},
			waits:   map[int64]string{1: "booked: GPUs held by ana until 2025-06-02T10:10:00Z"},
		},
		"a booking on one node leaves the other node alone": {
			s: mk(2, 2), c: cfg("fcfs"),
			bookings: []Booking{{ID: 9, UserID: 1, UserName: "ana", GPUCount: 2, NodeID: 2, Start: at(-time.Minute), End: at(time.Hour)}},
			pending:  []Job{pend(1, 2, 2), pend(2, 2, 1)},
			starts:   map[int64][]int64{1: ids(10, 11)},
			waits:    map[int64]string{2: "booked: GPUs booked by ana until 2025-06-02T11:00:00Z"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tc.s
			s.Running, s.Bookings, s.Pending = tc.running, tc.bookings, tc.pending
			pl := Schedule(s, tc.c)
			if d := cmp.Diff(tc.starts, startsOf(pl)); d != "" {
				t.Errorf("starts (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.waits, codesOf(pl)); d != "" {
				t.Errorf("explanations (-want +got):\n%s", d)
			}
		})
	}
}

// TestBookedAt checks that a booked explanation carries the booking's end.
func TestBookedAt(t *testing.T) {
	t.Parallel()
	s := mk(1, 1)
	s.Bookings = []Booking{{ID: 1, UserID: 1, UserName: "ana", GPUCount: 1, Start: at(-time.Hour), End: at(26 * time.Hour)}}
	s.Pending = []Job{pend(1, 2, 1)}
	got := Schedule(s, cfg("fcfs")).Pending
	want := []Explanation{{JobID: 1, Position: 1, Code: ReasonBooked, Reason: "GPUs booked by ana until 2025-06-03T12:00:00Z",
		At: at(26 * time.Hour), EstimatedStart: at(26 * time.Hour), Score: (time.Hour - time.Second).Hours()}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("explanation (-want +got):\n%s", d)
	}
}
