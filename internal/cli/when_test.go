package cli

import (
	"strings"
	"testing"
	"time"
)

// Times as people type them, read in the local zone relative to now.
func TestParseWhen(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 10, 17, 30, 0, berlin) // a Saturday
	at := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, berlin) }
	tests := map[string]struct {
		in   string
		want time.Time
		err  string
	}{
		"now":                   {in: "now", want: now},
		"NOW in capitals":       {in: " NOW ", want: now},
		"in two hours":          {in: "+2h", want: now.Add(2 * time.Hour)},
		"in 90 minutes":         {in: "+90m", want: now.Add(90 * time.Minute)},
		"in a day":              {in: "+1d", want: now.Add(24 * time.Hour)},
		"in a day and a half":   {in: "+1d12h", want: now.Add(36 * time.Hour)},
		"half an hour ago":      {in: "-30m", want: now.Add(-30 * time.Minute)},
		"tomorrow morning":      {in: "tomorrow 09:00", want: at(29, 9, 0)},
		"tomorrow, one digit":   {in: "Tomorrow 9:00", want: at(29, 9, 0)},
		"today":                 {in: "today 14:30", want: at(28, 14, 30)},
		"yesterday":             {in: "yesterday 18:00", want: at(27, 18, 0)},
		"a clock time":          {in: "14:30", want: at(28, 14, 30)},
		"a local date":          {in: "2026-11-30 09:00", want: at(30, 9, 0)},
		"a local date with T":   {in: "2026-11-30T09:00", want: at(30, 9, 0)},
		"a European date":       {in: "30.11.2026 09:00", want: at(30, 9, 0)},
		"RFC 3339":              {in: "2026-11-30T09:00:00Z", want: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)},
		"tomorrow without time": {in: "tomorrow", err: `needs a time of day, like "tomorrow 09:00"`},
		"a word":                {in: "soon", err: "give one like now, +2h"},
		"a bad span":            {in: "+2x", err: "is not a span like 2h"},
		"a bad hour":            {in: "tomorrow 25:00", err: "is not a time"},
		"empty":                 {in: "", err: "is not a time"},
	}
	for name, tc := range tests {
		got, err := parseWhen(tc.in, now)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %q gave %v, %v; want an error with %q", name, tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || !got.Equal(tc.want)):
			t.Errorf("%s: %q gave %v, %v; want %v", name, tc.in, got, err, tc.want)
		}
	}
}

// Days for a series' --first and --last.
func TestParseDay(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 23, 30, 0, 0, time.UTC)
	tests := map[string]struct{ in, want, err string }{
		"today":      {in: "today", want: "2026-11-28"},
		"tomorrow":   {in: "tomorrow", want: "2026-11-29"},
		"in a week":  {in: "+7d", want: "2026-12-05"},
		"a date":     {in: "2026-12-01", want: "2026-12-01"},
		"not a day":  {in: "someday", err: "is not a day"},
		"a bad date": {in: "2026-13-01", err: "is not a day"},
	}
	for name, tc := range tests {
		got, err := parseDay(tc.in, now)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %q gave %q, %v; want an error with %q", name, tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q gave %q, %v; want %q", name, tc.in, got, err, tc.want)
		}
	}
}
