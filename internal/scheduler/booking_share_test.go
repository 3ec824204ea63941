package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A booking of half a shared GPU is admitted and pinned to two slots of
// one shared GPU (the fullest that holds it: best fit); a booking of
// more than the slots left of that GPU beside it goes to the other, and
// one of more than both have left clashes.
func TestSharedSlotBookingAdmission(t *testing.T) {
	t.Parallel()
	s := mkShared()
	ana := Booking{ID: 1, UserID: 1, GPUCount: 1, GPUShare: 0.5, Start: t0.Add(-time.Hour), End: t0.Add(3 * time.Hour)}
	if r := AdmitBookings(s, []Booking{ana}).Refused; len(r) != 0 {
		t.Fatalf("half of a shared GPU refused: %+v", r)
	}
	base := Snapshot{Now: s.Now, Nodes: s.Nodes, GPUs: s.GPUs, Bookings: []Booking{ana}}
	bob := Booking{ID: 2, UserID: 2, GPUCount: 1, GPUShare: 1, Start: t0, End: t0.Add(time.Hour)}
	if r := AdmitBookings(base, []Booking{bob}).Refused; len(r) != 0 {
		t.Fatalf("a whole shared GPU beside half of one: %+v", r)
	}
	base.Bookings = append(base.Bookings, bob)
	cy := Booking{ID: 3, UserID: 3, GPUCount: 1, GPUShare: 0.75, Start: t0, End: t0.Add(time.Hour)}
	r := AdmitBookings(base, []Booking{cy}).Refused
	if len(r) != 1 || r[0].Code != RefusedClash {
		t.Fatalf("0.75 beside 0.5 and 1 of two shared GPUs: %+v, want a clash", r)
	}
	if diff := cmp.Diff([]int64{1, 2}, r[0].Rivals); diff != "" {
		t.Errorf("rivals (-want +got):\n%s", diff)
	}
	if r := AdmitBookings(base, []Booking{{ID: 4, UserID: 3, GPUCount: 1, GPUShare: 0.5, Start: t0, End: t0.Add(time.Hour)}}).Refused; len(r) != 0 {
		t.Errorf("the other half beside them: %+v", r)
	}
	if r := AdmitBookings(mk(1, 2), []Booking{{ID: 5, UserID: 3, GPUCount: 1, GPUShare: 0.5, Start: t0, End: t0.Add(time.Hour)}}).Refused; len(r) != 1 || r[0].Code != RefusedTooFew {
		t.Errorf("a share booking where no GPU is shared: %+v, want too few", r)
	}
}

// While ana's booking of half a shared GPU is in force, her share job runs
// on her booked slots (no quota charged beyond the booking), others' share
// jobs only on the slots left, and whole-GPU jobs never on slots.
func TestSharedSlotBookingRunsTheBookersJobs(t *testing.T) {
	t.Parallel()
	s := mkShared()
	s.GPUs = s.GPUs[:2+4] // GPUs 0, 1 whole; GPU 2 shared 4 ways (slots 120..123)
	s.Users[1] = Principal{GPUCap: 1}
	s.Bookings = []Booking{{ID: 1, UserID: 1, GPUCount: 1, GPUShare: 0.5, Start: t0.Add(-time.Hour), End: t0.Add(3 * time.Hour)}}
	s.Pending = []Job{pend(1, 2, 1, share(0.25)), pend(2, 2, 1, share(0.25)), pend(3, 2, 1, share(0.25)),
		pend(4, 1, 1, share(0.5))}
	pl := Schedule(s, DefaultConfig())
	if len(pl.Pins) != 1 || len(pl.Pins[0].GPUIDs) != 2 {
		t.Fatalf("pins: %+v, want ana's booking on 2 slots", pl.Pins)
	}
	pinned := map[int64]bool{}
	for _, g := range pl.Pins[0].GPUIDs {
		pinned[g] = true
	}
	started := map[int64]bool{}
	for _, st := range pl.Starts {
		started[st.JobID] = true
		for _, g := range st.GPUIDs {
			if st.JobID == 4 != pinned[g] {
				t.Errorf("job %d on slot %d (booked by ana: %v)", st.JobID, g, pinned[g])
			}
		}
	}
	if diff := cmp.Diff(map[int64]bool{1: true, 2: true, 4: true}, started); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
}
