package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// migNode is one node whose one H100 is split into seven 1g.10gb slices,
// ids 100..106.
func migNode() Snapshot {
	s := mk(1, 0)
	for k := range 7 {
		s.GPUs = append(s.GPUs, GPU{ID: 100 + int64(k), NodeID: 1, Index: 0, Model: "NVIDIA H100 80GB HBM3",
			Profile: "1g.10gb", MemoryMiB: 9984, Healthy: true})
	}
	return s
}

// A booking of slices (4 × 1g.10gb, in force) is admitted and pinned to
// slices by the same function; the booker's slice job runs on her booked
// slices, another's slice jobs only on the three slices left.
func TestMIGBookingRunsTheBookersJobs(t *testing.T) {
	t.Parallel()
	s := migNode()
	ana := Booking{ID: 1, UserID: 1, GPUCount: 4, GPUModel: "1g.10gb", Start: t0.Add(-time.Hour), End: t0.Add(3 * time.Hour)}
	if r := AdmitBookings(s, []Booking{ana}).Refused; len(r) != 0 {
		t.Fatalf("4 × 1g.10gb of 7 refused: %+v", r)
	}
	if r := AdmitBookings(Snapshot{Now: s.Now, Nodes: s.Nodes, GPUs: s.GPUs, Bookings: []Booking{ana}},
		[]Booking{{ID: 2, UserID: 2, GPUCount: 4, GPUModel: "1g.10gb", Start: t0, End: t0.Add(time.Hour)}}).Refused; len(r) != 1 || r[0].Code != RefusedClash {
		t.Errorf("4 more slices beside ana's 4: %+v, want a clash", r)
	}
	s.Bookings = []Booking{ana}
	s.Pending = []Job{pend(1, 2, 1, model("1g.10gb")), pend(2, 2, 1, model("1g.10gb")), pend(3, 2, 1, model("1g.10gb")),
		pend(4, 2, 1, model("1g.10gb")), pend(5, 1, 1, model("1g.10gb"))}
	pl := Schedule(s, DefaultConfig())
	if len(pl.Pins) != 1 || len(pl.Pins[0].GPUIDs) != 4 {
		t.Fatalf("pins: %+v, want ana's booking on 4 slices", pl.Pins)
	}
	pinned := map[int64]bool{}
	for _, g := range pl.Pins[0].GPUIDs {
		pinned[g] = true
	}
	started := map[int64]bool{}
	for _, st := range pl.Starts {
		started[st.JobID] = true
		for _, g := range st.GPUIDs {
			if st.JobID == 5 != pinned[g] {
				t.Errorf("job %d on slice %d (pinned to ana: %v)", st.JobID, g, pinned[g])
			}
		}
	}
	if diff := cmp.Diff(map[int64]bool{1: true, 2: true, 3: true, 5: true}, started); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
}
