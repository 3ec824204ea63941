package calgrid

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A booking of MIG slices is drawn with its profile ("bo · 2 × 1g.10gb")
// on slices of that profile only; a count of whole GPUs never on a slice.
func TestMIGSliceBookings(t *testing.T) {
	t.Parallel()
	loc := berlin(t)
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, loc)
	at := func(h int) time.Time { return day.Add(time.Duration(24+h) * time.Hour) }
	gs := []GPU{
		{ID: 1, NodeID: 10, Node: "a", Index: 0, Model: "H100"},
		{ID: 2, NodeID: 20, Node: "m", Index: 0, Model: "H100", Profile: "1g.10gb"},
		{ID: 3, NodeID: 20, Node: "m", Index: 0, Model: "H100", Profile: "1g.10gb"},
		{ID: 4, NodeID: 20, Node: "m", Index: 1, Model: "H100", Profile: "3g.40gb"},
	}
	items := []Item{
		{ID: 1, Kind: KindBooking, Owner: "bo", Count: 2, Model: "1G.10GB", Start: at(9), End: at(18)},
		{ID: 2, Kind: KindBooking, Owner: "ana", Count: 1, Model: "h100", Start: at(9), End: at(18)},
	}
	l := Compute(Input{View: Week, Date: day, Zone: loc, Now: day, GPUs: gs, Items: items})
	want := map[string][][]int64{"gpu-1": {{2}}, "gpu-2": {{1}}, "gpu-3": {{1}}, "gpu-4": {}}
	if diff := cmp.Diff(want, rowItems(l)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if got := l.Rows[1].Lanes[0][0].Label; got != "bo · 2 × 1g.10gb" {
		t.Errorf("slice booking's label %q, want %q", got, "bo · 2 × 1g.10gb")
	}
}
