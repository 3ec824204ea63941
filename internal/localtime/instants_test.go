package localtime

import "testing"

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
