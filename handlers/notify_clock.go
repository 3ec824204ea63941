package handlers

import (
	"fmt"
	"time"
)

// parseClock reads "HH:MM" as minutes of the day; "" is nil.
func parseClock(s string) (*int, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse("15:04", s)
	if err != nil {
		return nil, fmt.Errorf("must be a time of day like 22:00, got %q", s)
	}
	m := t.Hour()*60 + t.Minute()
	return &m, nil
}

// clockOf writes minutes of the day as "HH:MM"; nil is "".
func clockOf(m *int) string {
	if m == nil {
		return ""
	}
	return fmt.Sprintf("%02d:%02d", *m/60, *m%60)
}

// clockIn writes minutes m of the day on from's clock as "HH:MM" on to's,
// today (at now): 22:00 in UTC is 23:00 in Berlin in winter. "" for nil.
func clockIn(m *int, from, to *time.Location, now time.Time) string {
	if m == nil || from.String() == to.String() {
		return clockOf(m)
	}
	d := now.In(from)
	return time.Date(d.Year(), d.Month(), d.Day(), *m/60, *m%60, 0, 0, from).In(to).Format("15:04")
}
