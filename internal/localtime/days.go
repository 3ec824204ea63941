package localtime

import "time"

// StartOfDay is local midnight of t's day in loc. On the rare zones whose
// clocks skip midnight, time.Date normalizes to the first instant that exists.
func StartOfDay(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
}

// AddDays is local midnight n days after day's (n may be negative): a day
// across a DST change is 23 or 25 hours long, never a fixed 24.
func AddDays(day time.Time, n int, loc *time.Location) time.Time {
	l := day.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()+n, 0, 0, 0, 0, loc)
}

// At is hour:minute on day's date in loc.
func At(day time.Time, hour, minute int, loc *time.Location) time.Time {
	l := day.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), hour, minute, 0, 0, loc)
}

// HalfDays are the boundaries of n local half-days from day's midnight:
// n+1 instants, midnight, noon, midnight, ... in loc.
func HalfDays(day time.Time, n int, loc *time.Location) []time.Time {
	out := make([]time.Time, 0, n+1)
	for i := 0; i <= n; i++ {
		l := day.In(loc)
		out = append(out, time.Date(l.Year(), l.Month(), l.Day()+i/2, 12*(i%2), 0, 0, 0, loc))
	}
	return out
}

// Hours are the boundaries of the local hours of day's date: 24 hours and
// 25 instants on most days, 23/24 or 25/26 on DST change days (an hour that
// the clocks skip does not exist; one they repeat appears twice).
func Hours(day time.Time, loc *time.Location) []time.Time {
	start, end := StartOfDay(day, loc), AddDays(day, 1, loc)
	var out []time.Time
	for t := start; t.Before(end); t = t.Add(time.Hour) {
		out = append(out, t)
	}
	return append(out, end)
}

// SameDay reports whether a and b fall on the same date in a's location
// (pass both in the same zone).
func SameDay(a, b time.Time) bool {
	b = b.In(a.Location())
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}

// ParseLocal parses s in layout as a time in loc (a form's local time). A
// time the clocks skip (02:30 on a spring-forward day) moves forward by the
// gap, as time.Date does.
func ParseLocal(layout, s string, loc *time.Location) (time.Time, error) {
	return time.ParseInLocation(layout, s, loc)
}

// FormValue is t as an <input type="datetime-local"> value in loc.
func FormValue(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02T15:04")
}
