package handlers

import (
	"fmt"
	"time"
)

// zoneWindow writes a window in loc with the zone's abbreviation: "Mon 23
// Nov 09:00–18:00 CET", or with both days when it spans more than one.
func zoneWindow(from, to time.Time, loc *time.Location) string {
	from, to = from.In(loc), to.In(loc)
	if from.YearDay() == to.YearDay() && from.Year() == to.Year() {
		return from.Format("Mon 2 Jan 15:04") + "–" + to.Format("15:04 MST")
	}
	return from.Format("Mon 2 Jan 15:04 MST") + " – " + to.Format("Mon 2 Jan 15:04 MST")
}

// zoneName names loc for a form's label: "Europe/Berlin (CET)" at t.
func zoneName(loc *time.Location, t time.Time) string {
	abbr := t.In(loc).Format("MST")
	if loc.String() == abbr || loc == time.UTC {
		return abbr
	}
	return fmt.Sprintf("%s (%s)", loc, abbr)
}

// relativeWindow says where now is relative to a window: "starts in 3h
// 10m", "ends in 29m", "ended 2h ago".
func relativeWindow(now, from, to time.Time) string {
	switch {
	case now.Before(from):
		return "starts in " + roughDuration(from.Sub(now))
	case now.Before(to):
		return "ends in " + roughDuration(to.Sub(now))
	}
	return "ended " + roughDuration(now.Sub(to)) + " ago"
}

// roughDuration writes d for people: "45s", "29m", "3h 10m", "2d 4h".
func roughDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		if m := int(d.Minutes()) % 60; m != 0 {
			return fmt.Sprintf("%dh %dm", int(d.Hours()), m)
		}
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	days := int(d.Hours()) / 24
	if h := int(d.Hours()) % 24; h != 0 {
		return fmt.Sprintf("%dd %dh", days, h)
	}
	return fmt.Sprintf("%dd", days)
}

// parseZoneTime reads a datetime-local value (or RFC 3339 with an offset)
// in loc.
func parseZoneTime(field, s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, l := range []string{formTime, "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, invalid(field, "%q is not a date and time like 2026-11-23 09:00", s)
}
