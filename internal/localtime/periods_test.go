package localtime_test

import (
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// Months and ISO weeks start at local midnight in the zone asked for, and
// step to their neighbours across a DST change and a year's end.
func TestPeriods(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		in         string
		loc        *time.Location
		from, to   string // RFC 3339
		prev, next string
	}{
		"a month, UTC":           {"2026-11", time.UTC, "2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-10", "2026-12"},
		"a month, Berlin":        {"2026-11", berlin, "2026-11-01T00:00:00+01:00", "2026-12-01T00:00:00+01:00", "2026-10", "2026-12"},
		"the month of a DST end": {"2026-10", berlin, "2026-10-01T00:00:00+02:00", "2026-11-01T00:00:00+01:00", "2026-09", "2026-11"},
		"December":               {"2026-12", time.UTC, "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", "2026-11", "2027-01"},
		"a week":                 {"2026-W48", time.UTC, "2026-11-23T00:00:00Z", "2026-11-30T00:00:00Z", "2026-W47", "2026-W49"},
		"week 1 in the old year": {"2026-W01", berlin, "2025-12-29T00:00:00+01:00", "2026-01-05T00:00:00+01:00", "2025-W52", "2026-W02"},
		"week 53":                {"2026-W53", time.UTC, "2026-12-28T00:00:00Z", "2027-01-04T00:00:00Z", "2026-W52", "2027-W01"},
		"lower-case week":        {"2026-w48", time.UTC, "2026-11-23T00:00:00Z", "2026-11-30T00:00:00Z", "2026-W47", "2026-W49"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := localtime.ParsePeriod(tc.in, tc.loc)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.From.Format(time.RFC3339); got != tc.from {
				t.Errorf("from %s, want %s", got, tc.from)
			}
			if got := p.To.Format(time.RFC3339); got != tc.to {
				t.Errorf("to %s, want %s", got, tc.to)
			}
			if p.Prev().Name != tc.prev || p.Next().Name != tc.next {
				t.Errorf("prev %s next %s, want %s and %s", p.Prev().Name, p.Next().Name, tc.prev, tc.next)
			}
		})
	}
	for _, bad := range []string{"", "2026", "2026-13", "2026-W00", "2026-W54", "2025-W53", "November"} {
		if p, err := localtime.ParsePeriod(bad, time.UTC); err == nil {
			t.Errorf("ParsePeriod(%q) = %+v, want an error", bad, p)
		}
	}
}
