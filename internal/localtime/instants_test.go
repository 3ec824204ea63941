package localtime

import (
	"testing"
	"time"
)

func TestInstants(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	for _, tc := range []struct{ name, in, want string }{
		{"utc", "given back at 2026-11-29T08:00:00Z unless busy", "given back at Sun 29 Nov 09:00 CET unless busy"},
		{"offset and fraction", "at 2026-07-01T10:00:00.5+02:00.", "at Wed 1 Jul 10:00 CEST."},
		{"two", "now 2026-12-02T09:00:00Z to 2026-12-02T10:00:00Z, 1 GPU", "now Wed 2 Dec 10:00 CET to Wed 2 Dec 11:00 CET, 1 GPU"},
		{"json", `{"starts_at":"2026-12-02T09:00:00Z"}`, `{"starts_at":"Wed 2 Dec 10:00 CET"}`},
		{"not an instant", "month 2026-13-40T99:99:99Z, day 2026-11-29", "month 2026-13-40T99:99:99Z, day 2026-11-29"},
		{"none", "waiting for GPUs", "waiting for GPUs"},
	} {
		if got := Instants(tc.in, berlin); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestInstantsNear(t *testing.T) {
	t.Parallel()
	berlin := mustLoad(t, "Europe/Berlin")
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ name, in, want string }{
		{"today", "GPUs booked by ana until 2026-11-28T12:14:00Z", "GPUs booked by ana until 13:14 CET"},
		{"this week", "from 2026-11-30T08:00:00Z until 2026-11-30T10:00:00Z", "from Mon 09:00 CET until Mon 11:00 CET"},
		{"later", "reserved start at 2026-12-24T08:00:00Z", "reserved start at Thu 24 Dec 09:00 CET"},
	} {
		if got := InstantsNear(tc.in, now, berlin); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
