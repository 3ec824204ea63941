package calgrid

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func berlin(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func gpus() []GPU {
	return []GPU{
		{ID: 1, NodeID: 10, Node: "a", Index: 0, Model: "H100"},
		{ID: 2, NodeID: 10, Node: "a", Index: 1, Model: "H100"},
		{ID: 3, NodeID: 20, Node: "b", Index: 0, Model: "A100"},
	}
}

// rowItems lists, per row key, the ids of the items drawn in each lane.
func rowItems(l Layout) map[string][][]int64 {
	out := map[string][][]int64{}
	for _, r := range l.Rows {
		lanes := [][]int64{}
		for _, lane := range r.Lanes {
			var ids []int64
			for _, b := range lane {
				ids = append(ids, b.Item.ID)
			}
			lanes = append(lanes, ids)
		}
		out[r.Key] = lanes
	}
	return out
}

func TestPlacementAndGrouping(t *testing.T) {
	t.Parallel()
	loc := berlin(t)
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, loc) // Monday
	at := func(d, h int) time.Time { return day.Add(time.Duration(d*24+h) * time.Hour) }
	items := []Item{
		{ID: 1, Kind: KindBooking, Owner: "ana", Count: 1, GPUIDs: []int64{2}, Start: at(1, 9), End: at(1, 18)},
		{ID: 2, Kind: KindBooking, Owner: "bo", Count: 2, Model: "h100", Start: at(1, 12), End: at(1, 20)}, // GPU 1 free, GPU 2 not
		{ID: 3, Kind: KindJob, Owner: "cy", Count: 1, GPUIDs: []int64{3}, Start: at(0, 8), End: at(0, 10)},
		{ID: 4, Kind: KindBooking, Owner: "dee", Count: 1, Start: at(9, 0), End: at(9, 5)}, // after the week
	}
	l := Compute(Input{View: Week, Date: day, Zone: loc, Now: at(0, 9), GPUs: gpus(), Items: items})
	want := map[string][][]int64{
		"gpu-1": {{2}},
		"gpu-2": {{1}, {2}}, // bo's count overflows onto GPU 2 in its own lane
		"gpu-3": {{3}},
	}
	if diff := cmp.Diff(want, rowItems(l)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if l.Rows[0].Group != "a" || l.Rows[1].Group != "" || l.Rows[2].Group != "b" {
		t.Errorf("node headings: %q %q %q", l.Rows[0].Group, l.Rows[1].Group, l.Rows[2].Group)
	}
	if !l.Rows[0].Lanes[0][0].Tentative || l.Rows[1].Lanes[0][0].Tentative {
		t.Error("a count is drawn as tentative, a named GPU is not")
	}
	// By node: ana's and bo's bookings overlap on node a, in two lanes; bo's booking once.
	byNode := Compute(Input{View: Week, Date: day, Zone: loc, Group: ByNode, Now: at(0, 9), GPUs: gpus(), Items: items})
	if diff := cmp.Diff(map[string][][]int64{"node-10": {{1}, {2}}, "node-20": {{3}}}, rowItems(byNode)); diff != "" {
		t.Errorf("by node (-want +got):\n%s", diff)
	}
	byType := Compute(Input{View: Week, Date: day, Zone: loc, Group: ByType, Now: at(0, 9), GPUs: gpus(), Items: items})
	if len(byType.Rows) != 2 || byType.Rows[0].Sub != "2 GPUs" {
		t.Errorf("by type: %+v", byType.Rows)
	}
	// Tuesday afternoon: ana and bo take both H100s, the A100 is free.
	var tue []int
	for _, s := range l.Capacity {
		tue = append(tue, s.Free)
	}
	if diff := cmp.Diff([]int{2, 3, 2, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, tue); diff != "" {
		t.Errorf("free GPUs per half-day (-want +got):\n%s", diff)
	}
	if l.Capacity[3].Level != "mid" || l.Capacity[2].Level != "high" {
		t.Errorf("1 of 3 free is %q, 2 of 3 %q", l.Capacity[3].Level, l.Capacity[2].Level)
	}
}

// Bars never cover one another: a short booking's label is wider than its
// span, so the next booking on the GPU goes to a second lane.
func TestLanesKeepLabelsApart(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	items := []Item{
		{ID: 1, Kind: KindBooking, Owner: "ana", Count: 1, GPUIDs: []int64{1}, Start: day.Add(9 * time.Hour), End: day.Add(10 * time.Hour)},
		{ID: 2, Kind: KindBooking, Owner: "bo", Count: 1, GPUIDs: []int64{1}, Start: day.Add(12 * time.Hour), End: day.Add(13 * time.Hour)},
		{ID: 3, Kind: KindBooking, Owner: "cy", Count: 1, GPUIDs: []int64{1}, Start: day.Add(48 * time.Hour), End: day.Add(50 * time.Hour)},
	}
	l := Compute(Input{View: Week, Date: day, Zone: time.UTC, Now: day, GPUs: gpus()[:1], Items: items})
	if diff := cmp.Diff(map[string][][]int64{"gpu-1": {{1, 3}, {2}}}, rowItems(l)); diff != "" {
		t.Errorf("lanes (-want +got):\n%s", diff)
	}
	b := l.Rows[0].Lanes[0][0]
	if b.MinCh != len("ana · 1 GPU")+1 || b.Width <= 0 || b.Width > 1 {
		t.Errorf("bar %+v", b)
	}
	// In the day view the two hours between them are wide enough for ana's label.
	d := Compute(Input{View: Day, Date: day, Zone: time.UTC, Now: day, GPUs: gpus()[:1], Items: items})
	if diff := cmp.Diff(map[string][][]int64{"gpu-1": {{1, 2}}}, rowItems(d)); diff != "" {
		t.Errorf("day lanes (-want +got):\n%s", diff)
	}
}

// A week across the autumn DST change in Berlin: Sunday has 25 hours, the
// columns and half-days stay on local midnight and noon, and a booking from
// Saturday 20:00 CEST to Sunday 08:00 CET (13 hours) is drawn that long.
func TestWeekAcrossDST(t *testing.T) {
	t.Parallel()
	loc := berlin(t)
	day := time.Date(2026, 10, 22, 0, 0, 0, 0, loc) // Thursday
	from := time.Date(2026, 10, 24, 20, 0, 0, 0, loc)
	to := time.Date(2026, 10, 25, 8, 0, 0, 0, loc)
	items := []Item{{ID: 1, Kind: KindBooking, Owner: "ana", Count: 1, GPUIDs: []int64{1}, Start: from, End: to}}
	l := Compute(Input{View: Week, Date: day, Zone: loc, Now: day, GPUs: gpus()[:1], Items: items})
	if got := l.End.Sub(l.Start); got != 7*24*time.Hour+time.Hour {
		t.Errorf("the week lasts %v, want 169h", got)
	}
	if got := to.Sub(from); got != 13*time.Hour {
		t.Fatalf("the booking lasts %v", got)
	}
	sun := l.Columns[3]
	if sun.Label != "Sun 25 Oct" || sun.End.Sub(sun.Start) != 25*time.Hour {
		t.Errorf("Sunday column %q lasts %v", sun.Label, sun.End.Sub(sun.Start))
	}
	var bounds []string
	for _, s := range l.Capacity[4:8] {
		bounds = append(bounds, s.Start.In(loc).Format("Mon 15:04 MST"))
	}
	if diff := cmp.Diff([]string{"Sat 00:00 CEST", "Sat 12:00 CEST", "Sun 00:00 CEST", "Sun 12:00 CET"}, bounds); diff != "" {
		t.Errorf("half-days (-want +got):\n%s", diff)
	}
	b := l.Rows[0].Lanes[0][0]
	if want := 13.0 / 169 * 100; b.Width < want-0.001 || b.Width > want+0.001 {
		t.Errorf("bar width %.3f%%, want %.3f%% (13 of 169 hours)", b.Width, want)
	}
	if got := l.Capacity[5].Free + l.Capacity[6].Free; got != 0 {
		t.Errorf("the booking's half-days show %d free", got)
	}
	// The day of the change by the hour: 25 columns, "02" twice.
	d := Compute(Input{View: Day, Date: time.Date(2026, 10, 25, 0, 0, 0, 0, loc), Zone: loc, Now: day, GPUs: gpus()[:1]})
	var hours []string
	for _, c := range d.Columns[:5] {
		hours = append(hours, c.Label)
	}
	if len(d.Columns) != 25 || len(d.Capacity) != 25 || !cmp.Equal(hours, []string{"00", "01", "02", "02", "03"}) {
		t.Errorf("the day of the change: %d columns %v, %d capacity cells", len(d.Columns), hours, len(d.Capacity))
	}
}
