package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/bookingcsv"
)

// clock is the time the CLI reads relative times from (tests set it).
var clock = time.Now

// whenHelp lists the forms parseWhen takes, for flag help and errors.
const whenHelp = `now, +2h, +1d, "tomorrow 09:00", "today 14:30", "2026-11-23 09:00" (local time) or RFC 3339`

// parseWhen reads a time as people type it, relative to now and in now's
// zone: "now"; "+2h", "+90m", "+1d", "+1d12h", "-30m" (from now);
// "today 14:30", "tomorrow 09:00", "yesterday 18:00"; "14:30" (today);
// the bookings sheet's local forms ("2026-11-23 09:00", "23.11.2026
// 09:00"); RFC 3339 with its offset.
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	switch {
	case low == "now":
		return now, nil
	case strings.HasPrefix(low, "+") || strings.HasPrefix(low, "-"):
		d, err := parseSpan(low[1:])
		if err != nil {
			return time.Time{}, err
		}
		if low[0] == '-' {
			d = -d
		}
		return now.Add(d), nil
	}
	day, clockPart := "", low
	if word, rest, ok := strings.Cut(low, " "); ok {
		day, clockPart = word, strings.TrimSpace(rest)
	} else if low == "today" || low == "tomorrow" || low == "yesterday" {
		return time.Time{}, fmt.Errorf("%q needs a time of day, like %q", s, low+" 09:00")
	}
	offset := map[string]int{"": 0, "today": 0, "tomorrow": 1, "yesterday": -1}
	if n, ok := offset[day]; ok {
		if h, m, ok := clockOf(clockPart); ok {
			y, mo, d := now.Date()
			return time.Date(y, mo, d+n, h, m, 0, 0, now.Location()), nil
		}
	}
	if t, err := bookingcsv.ParseTime(s, now.Location()); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: give one like %s", s, whenHelp)
}

// parseSpan reads "2h", "90m", "1d", "1d12h", "1h30m".
func parseSpan(s string) (time.Duration, error) {
	var days time.Duration
	if d, rest, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a span like 2h, 90m or 1d", s)
		}
		days, s = time.Duration(n)*24*time.Hour, rest
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a span like 2h, 90m or 1d", s)
	}
	return days + d, nil
}

// clockOf reads "9:00", "09:00" or "14:30".
func clockOf(s string) (h, m int, ok bool) {
	hs, ms, found := strings.Cut(s, ":")
	if !found || len(ms) != 2 || len(hs) < 1 || len(hs) > 2 {
		return 0, 0, false
	}
	h, err1 := strconv.Atoi(hs)
	m, err2 := strconv.Atoi(ms)
	if err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, 0, false
	}
	return h, m, true
}

// parseDay reads a day as people type it: "today", "tomorrow", "+3d" or
// "2026-11-30", as YYYY-MM-DD in now's zone.
func parseDay(s string, now time.Time) (string, error) {
	low := strings.ToLower(strings.TrimSpace(s))
	y, mo, d := now.Date()
	switch {
	case low == "today":
		return now.Format(time.DateOnly), nil
	case low == "tomorrow":
		return time.Date(y, mo, d+1, 12, 0, 0, 0, now.Location()).Format(time.DateOnly), nil
	case strings.HasPrefix(low, "+") && strings.HasSuffix(low, "d"):
		n, err := strconv.Atoi(low[1 : len(low)-1])
		if err == nil && n >= 0 {
			return time.Date(y, mo, d+n, 12, 0, 0, 0, now.Location()).Format(time.DateOnly), nil
		}
	}
	if t, err := time.ParseInLocation(time.DateOnly, low, now.Location()); err == nil {
		return t.Format(time.DateOnly), nil
	}
	return "", fmt.Errorf("%q is not a day: give one like today, tomorrow, +7d or 2026-11-30", s)
}

// flagTime reads a time flag's value with parseWhen; the error names the flag.
func flagTime(flag, s string) (time.Time, error) {
	t, err := parseWhen(s, clock().In(time.Local))
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s: %w", flag, err)
	}
	return t, nil
}
