package models

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Quiet hours hold deliveries other than in-app until their end, across
// midnight too.
func TestQuietHours(t *testing.T) {
	t.Parallel()
	minutes := func(h, m int) *int { v := h*60 + m; return &v }
	day := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	cases := map[string]struct {
		start, end *int
		now        time.Time
		quiet      bool
		until      time.Time
	}{
		"none set":              {nil, nil, at(23, 0), false, time.Time{}},
		"inside, same day":      {minutes(12, 0), minutes(14, 0), at(13, 0), true, at(14, 0)},
		"outside, same day":     {minutes(12, 0), minutes(14, 0), at(14, 0), false, time.Time{}},
		"late evening, wraps":   {minutes(22, 0), minutes(7, 30), at(23, 15), true, at(31, 30)},
		"early morning, wraps":  {minutes(22, 0), minutes(7, 30), at(6, 0), true, at(7, 30)},
		"daytime, wraps: loud":  {minutes(22, 0), minutes(7, 30), at(12, 0), false, time.Time{}},
		"start equals end: off": {minutes(9, 0), minutes(9, 0), at(9, 0), false, time.Time{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := NotificationPrefs{QuietStart: tc.start, QuietEnd: tc.end}
			quiet, until := p.Quiet(tc.now)
			if diff := cmp.Diff([]any{tc.quiet, tc.until}, []any{quiet, until}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Quiet hours keep to the clock of their zone: 22:00–07:00 in Berlin is
// 21:00–06:00 UTC in winter, 20:00–05:00 in summer, and the night the
// clocks go back lasts an hour longer.
func TestQuietHoursInTheirZone(t *testing.T) {
	t.Parallel()
	start, end := 22*60, 7*60
	p := NotificationPrefs{QuietStart: &start, QuietEnd: &end, QuietZone: "Europe/Berlin"}
	utc := func(mo time.Month, d, h, m int) time.Time { return time.Date(2026, mo, d, h, m, 0, 0, time.UTC) }
	cases := map[string]struct {
		now   time.Time
		quiet bool
		until time.Time
	}{
		"winter, 22:30 CET":            {utc(11, 24, 21, 30), true, utc(11, 25, 6, 0)},
		"winter, 21:30 CET":            {utc(11, 24, 20, 30), false, time.Time{}},
		"winter, 06:30 CET":            {utc(11, 25, 5, 30), true, utc(11, 25, 6, 0)},
		"summer, 22:30 CEST":           {utc(7, 1, 20, 30), true, utc(7, 2, 5, 0)},
		"summer, 07:30 CEST":           {utc(7, 2, 5, 30), false, time.Time{}},
		"clocks go back, 23:00 CEST":   {utc(10, 24, 21, 0), true, utc(10, 25, 6, 0)},
		"clocks go forward, 23:00 CET": {utc(3, 28, 22, 0), true, utc(3, 29, 5, 0)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			quiet, until := p.Quiet(tc.now)
			if diff := cmp.Diff([]any{tc.quiet, tc.until}, []any{quiet, until}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Defaults: the events people ask for go everywhere, starts nowhere, the
// rest in the app.
func TestDefaultPreferences(t *testing.T) {
	t.Parallel()
	d := DefaultPreferences()
	if len(d) != len(Events) || len(d[EventJobStarted]) != 0 || len(d[EventJobFinished]) != 4 || !cmp.Equal(d[EventJobCanceled], []string{KindInApp}) {
		t.Fatalf("defaults %v", d)
	}
}
