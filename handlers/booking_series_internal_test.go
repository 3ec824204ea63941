package handlers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// A weekday series keeps its local hours across a DST change: 09:00 in
// Berlin is 08:00 UTC before 28 March 2027 and 07:00 UTC after.
func TestSeriesWindowsAcrossDST(t *testing.T) {
	t.Parallel()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := seriesWindows(&api.SeriesRequest{FirstDay: "2027-03-25", LastDay: "2027-03-30", Days: []string{"mon", "Thu", "friday"},
		StartTime: "09:00", EndTime: "18:00"}, loc)
	if err != nil {
		t.Fatal(err)
	}
	var utc []string
	for _, w := range got {
		utc = append(utc, w[0].UTC().Format("Mon 02 15:04")+"–"+w[1].UTC().Format("15:04"))
	}
	want := []string{"Thu 25 08:00–17:00", "Fri 26 08:00–17:00", "Mon 29 07:00–16:00"}
	if diff := cmp.Diff(want, utc); diff != "" {
		t.Errorf("occurrences in UTC (-want +got):\n%s", diff)
	}
	tests := map[string]api.SeriesRequest{
		"bad day":        {FirstDay: "2027-03-25", LastDay: "2027-03-30", Days: []string{"funday"}, StartTime: "09:00", EndTime: "10:00"},
		"last before":    {FirstDay: "2027-03-25", LastDay: "2027-03-20", StartTime: "09:00", EndTime: "10:00"},
		"bad time":       {FirstDay: "2027-03-25", LastDay: "2027-03-26", StartTime: "9am", EndTime: "10:00"},
		"no weekday":     {FirstDay: "2027-03-25", LastDay: "2027-03-25", Days: []string{"mon"}, StartTime: "09:00", EndTime: "10:00"},
		"too many dates": {FirstDay: "2027-01-01", LastDay: "2027-12-31", Days: []string{"mon", "tue"}, StartTime: "09:00", EndTime: "10:00"},
	}
	for name, r := range tests {
		if _, err := seriesWindows(&r, loc); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// An end at or before the start is the next morning.
	night, _ := seriesWindows(&api.SeriesRequest{FirstDay: "2027-03-25", LastDay: "2027-03-25", StartTime: "22:00", EndTime: "06:00"}, loc)
	if len(night) != 1 || night[0][1].Sub(night[0][0]) != 8*time.Hour {
		t.Errorf("overnight occurrence: %v", night)
	}
}
