package localtime

import (
	"fmt"
	"time"
)

// Abbrev is the zone's abbreviation at t in loc: "CET", "CEST", "UTC".
// Zones without a letter abbreviation give their offset, "+0530".
func Abbrev(t time.Time, loc *time.Location) string {
	name, _ := t.In(loc).Zone()
	return name
}

// Clock is "15:04 CET": the time of day with the zone.
func Clock(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("15:04 MST")
}

// DayClock is "Thu 09:00": weekday and time, without the zone (for places
// where the zone is said once).
func DayClock(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Mon 15:04")
}

// Stamp is "Mon 2 Jan 15:04 CET".
func Stamp(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Mon 2 Jan 15:04 MST")
}

// StampSeconds is "Mon 2 Jan 15:04:05 CET".
func StampSeconds(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("Mon 2 Jan 15:04:05 MST")
}

// DateTime is "2026-11-24 15:04:05 CET", for tables and logs.
func DateTime(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02 15:04:05 MST")
}

// Window is a time span as a person reads it: "Thu 26 Nov 09:00–18:00 CET"
// within a day, else "Thu 26 Nov 09:00 – Fri 27 Nov 18:00 CET". The zone is
// the end's (they differ only across a DST change, where each gets its own).
func Window(from, to time.Time, loc *time.Location) string {
	f, e := from.In(loc), to.In(loc)
	fz, _ := f.Zone()
	ez, _ := e.Zone()
	sameDay := f.Year() == e.Year() && f.YearDay() == e.YearDay()
	switch {
	case fz != ez:
		return f.Format("Mon 2 Jan 15:04 MST") + " – " + e.Format("Mon 2 Jan 15:04 MST")
	case sameDay:
		return f.Format("Mon 2 Jan 15:04") + "–" + e.Format("15:04 MST")
	}
	return f.Format("Mon 2 Jan 15:04") + " – " + e.Format("Mon 2 Jan 15:04 MST")
}

// When is a moment relative to now, for deciding: within a day "15:04 CET",
// within a week "Thu 09:00 CET", later "Thu 3 Dec 09:00 CET".
func When(t, now time.Time, loc *time.Location) string {
	lt, ln := t.In(loc), now.In(loc)
	switch {
	case SameDay(lt, ln):
		return lt.Format("15:04 MST")
	case lt.After(ln) && lt.Before(StartOfDay(ln, loc).AddDate(0, 0, 7)):
		return lt.Format("Mon 15:04 MST")
	}
	return lt.Format("Mon 2 Jan 15:04 MST")
}

// Relative is how far t is from now, coarsely: "in 29m", "in 3h 5m",
// "in 2d", "5m ago", "now".
func Relative(t, now time.Time) string {
	d := t.Sub(now)
	if d > -30*time.Second && d < 30*time.Second {
		return "now"
	}
	if d < 0 {
		return Span(-d) + " ago"
	}
	return "in " + Span(d)
}

// Span is a duration, coarsely: "45s", "29m", "3h 5m", "2d 4h".
func Span(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int((d+30*time.Second)/time.Minute))
	case d < 24*time.Hour:
		d = d.Round(time.Minute)
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh %dm", h, m)
	}
	d = d.Round(time.Hour)
	days, h := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
	if h == 0 {
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd %dh", days, h)
}

// Ends is "ends ~16:30 CET (in 29m)": an expected end, as estimates are.
func Ends(end, now time.Time, loc *time.Location) string {
	return "ends ~" + When(end, now, loc) + " (" + Relative(end, now) + ")"
}

// Starts is "starts ~16:30 CET (in 29m)".
func Starts(start, now time.Time, loc *time.Location) string {
	return "starts ~" + When(start, now, loc) + " (" + Relative(start, now) + ")"
}
