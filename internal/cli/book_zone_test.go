package cli

import (
	"testing"
	"time"
)

// --from and --until are local time (TZ or the system's zone), across a
// DST change too; RFC 3339 with an offset means what it says.
func TestBookTimesInLocalZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin") // embedded tzdata: works without system zoneinfo
	if err != nil {
		t.Fatal(err)
	}
	saved := time.Local
	time.Local = berlin
	t.Cleanup(func() { time.Local = saved })
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2027-03-27 20:00", time.Date(2027, 3, 27, 19, 0, 0, 0, time.UTC)}, // CET
		{"2027-03-28T08:00", time.Date(2027, 3, 28, 6, 0, 0, 0, time.UTC)},  // CEST, after the change
		{"2027-03-28T08:00:00-05:00", time.Date(2027, 3, 28, 13, 0, 0, 0, time.UTC)},
		{"2027-03-28T08:00:00Z", time.Date(2027, 3, 28, 8, 0, 0, 0, time.UTC)},
	} {
		got, err := flagTime("from", tc.in)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%q: %v (%v), want %v", tc.in, got.UTC(), err, tc.want)
		}
	}
}
