package scheduler

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPlanPins checks what the plan says each booking in force keeps: named
// GPUs exactly, a count as that many distinct GPUs of the cluster, never a
// GPU twice, and nothing for a booking that has not begun or has ended.
func TestPlanPins(t *testing.T) {
	t.Parallel()
	count := func(id int64, gpus int, from, to time.Duration) Booking {
		return Booking{ID: id, UserID: id, UserName: "u", GPUCount: gpus, Start: at(from), End: at(to)}
	}
	cases := map[string]struct {
		bookings []Booking
		sizes    map[int64]int     // booking → GPUs pinned
		named    map[int64][]int64 // booking → exactly these
	}{
		"a count in force":      {bookings: []Booking{count(1, 2, -time.Hour, time.Hour)}, sizes: map[int64]int{1: 2}},
		"a hold of one GPU":     {bookings: []Booking{{ID: 2, UserID: 2, Hold: true, GPUCount: 1, Start: at(-time.Minute), End: at(15 * time.Minute)}}, sizes: map[int64]int{2: 1}},
		"named GPUs":            {bookings: []Booking{{ID: 3, UserID: 3, GPUCount: 2, GPUIDs: ids(12, 13), Start: at(-time.Hour), End: at(time.Hour)}}, sizes: map[int64]int{3: 2}, named: map[int64][]int64{3: ids(12, 13)}},
		"two side by side":      {bookings: []Booking{count(4, 2, -time.Hour, time.Hour), count(5, 2, -time.Minute, 2*time.Hour)}, sizes: map[int64]int{4: 2, 5: 2}},
		"not begun, not pinned": {bookings: []Booking{count(6, 2, time.Hour, 2*time.Hour)}, sizes: map[int64]int{}},
		"ended, not pinned":     {bookings: []Booking{count(7, 2, -2*time.Hour, -time.Hour)}, sizes: map[int64]int{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mk(1, 4)
			s.Bookings = tc.bookings
			pins := Schedule(s, cfg("fcfs")).Pins
			sizes, seen := map[int64]int{}, map[int64]bool{}
			for _, p := range pins {
				sizes[p.BookingID] = len(p.GPUIDs)
				if !slices.IsSorted(p.GPUIDs) {
					t.Errorf("booking %d: GPUs %v not in order", p.BookingID, p.GPUIDs)
				}
				for _, g := range p.GPUIDs {
					if g < 10 || g > 13 || seen[g] {
						t.Errorf("booking %d pins GPU %d: not a GPU of the cluster, or pinned twice", p.BookingID, g)
					}
					seen[g] = true
				}
				if want, ok := tc.named[p.BookingID]; ok {
					if d := cmp.Diff(want, p.GPUIDs); d != "" {
						t.Errorf("booking %d's named GPUs (-want +got):\n%s", p.BookingID, d)
					}
				}
			}
			if d := cmp.Diff(tc.sizes, sizes); d != "" {
				t.Errorf("GPUs pinned per booking (-want +got):\n%s", d)
			}
		})
	}
}
