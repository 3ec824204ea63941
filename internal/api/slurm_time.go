package api

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseTimeLimit reads a time limit as people type it for --time: a Go
// duration ("2h", "90m", "45s") or one of Slurm's forms, where a bare
// number is minutes: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM",
// "D-HH:MM:SS". It returns 1 second to 30 days; "0" (Slurm's unlimited)
// and anything else is an error that says what is accepted.
func ParseTimeLimit(text string) (Seconds, error) {
	text = strings.TrimSpace(text)
	if d, err := time.ParseDuration(text); err == nil && strings.ContainsAny(text, "hmsµun") {
		return inRange(d.Seconds(), strconv.Quote(text))
	}
	secs, ok := slurmTime(text)
	if !ok {
		return 0, fmt.Errorf("%q is not a time limit: give a duration like 2h or 90m, or Slurm's MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS", text)
	}
	if secs == 0 {
		return 0, fmt.Errorf("%q: a time limit of 0 (Slurm's unlimited) is not taken here; leave it out for the policy's default", text)
	}
	return inRange(float64(secs), strconv.Quote(text))
}

// slurmTime reads Slurm's forms of a time into seconds.
func slurmTime(text string) (int64, bool) {
	days := int64(0)
	rest := text
	if d, r, ok := strings.Cut(text, "-"); ok {
		n, ok := count(d)
		if !ok {
			return 0, false
		}
		days, rest = n, r
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 {
		return 0, false
	}
	nums := make([]int64, len(parts))
	for i, p := range parts {
		n, ok := count(p)
		if !ok {
			return 0, false
		}
		nums[i] = n
	}
	var h, m, s int64
	switch {
	case text != rest: // D-HH, D-HH:MM, D-HH:MM:SS
		h = nums[0]
		if len(nums) > 1 {
			m = nums[1]
		}
		if len(nums) > 2 {
			s = nums[2]
		}
	case len(nums) == 1: // MM
		m = nums[0]
	case len(nums) == 2: // MM:SS
		m, s = nums[0], nums[1]
	default: // HH:MM:SS
		h, m, s = nums[0], nums[1], nums[2]
	}
	if days > 366 || h > 366*24 || m > 366*24*60 || s > 366*24*3600 {
		return 0, false
	}
	return ((days*24+h)*60+m)*60 + s, true
}

// count reads a non-negative decimal number of digits only.
func count(s string) (int64, bool) {
	if s == "" || len(s) > 9 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
