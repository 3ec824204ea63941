package localtime

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustLoad(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"", true}, {"UTC", true}, {"Europe/Berlin", true}, {"America/New_York", true},
		{"Local", false}, {"Mars/Olympus", false}, {"../etc/passwd", false}, {"/etc/localtime", false}} {
		if got := Valid(tc.name); got != tc.ok {
			t.Errorf("Valid(%q) = %v, want %v", tc.name, got, tc.ok)
		}
	}
	if OrUTC("nope") != time.UTC {
		t.Error("OrUTC of an unknown zone is not UTC")
	}
}

func TestContext(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	if got := FromContext(WithZone(context.Background(), berlin)); got != berlin {
		t.Errorf("FromContext = %v", got)
	}
	if got := FromContext(context.Background()); got != time.UTC {
		t.Errorf("FromContext of a bare context = %v", got)
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	now := time.Date(2026, 11, 24, 15, 1, 0, 0, time.UTC) // Tue 16:01 CET
	for _, tc := range []struct{ name, got, want string }{
		{"clock", Clock(now, berlin), "16:01 CET"},
		{"stamp", Stamp(now, berlin), "Tue 24 Nov 16:01 CET"},
		{"window same day", Window(now, now.Add(2*time.Hour), berlin), "Tue 24 Nov 16:01–18:01 CET"},
		{"window two days", Window(now, now.Add(24*time.Hour), berlin), "Tue 24 Nov 16:01 – Wed 25 Nov 16:01 CET"},
		{"window across DST", Window(time.Date(2026, 10, 24, 8, 0, 0, 0, time.UTC), time.Date(2026, 10, 25, 16, 0, 0, 0, time.UTC), berlin),
			"Sat 24 Oct 10:00 CEST – Sun 25 Oct 17:00 CET"},
		{"when today", When(now.Add(29*time.Minute), now, berlin), "16:30 CET"},
		{"when this week", When(now.Add(48*time.Hour), now, berlin), "Thu 16:01 CET"},
		{"when later", When(now.Add(10*24*time.Hour), now, berlin), "Fri 4 Dec 16:01 CET"},
		{"relative", Relative(now.Add(29*time.Minute), now), "in 29m"},
		{"relative past", Relative(now.Add(-3*time.Hour-5*time.Minute), now), "3h 5m ago"},
		{"relative now", Relative(now.Add(10*time.Second), now), "now"},
		{"relative days", Relative(now.Add(50*time.Hour), now), "in 2d 2h"},
		{"ends", Ends(now.Add(29*time.Minute), now, berlin), "ends ~16:30 CET (in 29m)"},
		{"abbrev summer", Abbrev(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), berlin), "CEST"},
		{"utc", Clock(now, time.UTC), "15:01 UTC"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestDaysAcrossDST: local days are 23 and 25 hours long on the change
// days, and half-day and hour boundaries stay on local midnight and noon.
func TestDaysAcrossDST(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	ny := mustLoad(t, "America/New_York")
	for _, tc := range []struct {
		name  string
		loc   *time.Location
		day   time.Time
		hours int
	}{
		{"berlin spring", berlin, time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC), 23},
		{"berlin autumn", berlin, time.Date(2026, 10, 25, 12, 0, 0, 0, time.UTC), 25},
		{"new york autumn", ny, time.Date(2026, 11, 1, 16, 0, 0, 0, time.UTC), 25},
		{"ordinary", berlin, time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, next := StartOfDay(tc.day, tc.loc), AddDays(tc.day, 1, tc.loc)
			if got := next.Sub(start); got != time.Duration(tc.hours)*time.Hour {
				t.Errorf("day length %v, want %dh", got, tc.hours)
			}
			if h := start.In(tc.loc).Hour(); h != 0 {
				t.Errorf("start of day at %d:00", h)
			}
			if got := len(Hours(tc.day, tc.loc)) - 1; got != tc.hours {
				t.Errorf("%d hour columns, want %d", got, tc.hours)
			}
			hd := HalfDays(start, 4, tc.loc)
			var clock []string
			for _, b := range hd {
				clock = append(clock, b.In(tc.loc).Format("02 15:04"))
			}
			d := start.In(tc.loc).Day()
			want := []string{
				time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC).Format("02") + " 00:00",
				time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC).Format("02") + " 12:00",
				time.Date(2026, 1, d+1, 0, 0, 0, 0, time.UTC).Format("02") + " 00:00",
				time.Date(2026, 1, d+1, 0, 0, 0, 0, time.UTC).Format("02") + " 12:00",
				time.Date(2026, 1, d+2, 0, 0, 0, 0, time.UTC).Format("02") + " 00:00",
			}
			if diff := cmp.Diff(want, clock); diff != "" {
				t.Errorf("half-days (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseLocal(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	got, err := ParseLocal("2006-01-02T15:04", "2026-10-25T09:00", berlin)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 10, 25, 8, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("got %v, want %v", got.UTC(), want)
	}
	if s := FormValue(got, berlin); s != "2026-10-25T09:00" {
		t.Errorf("FormValue = %q", s)
	}
}
