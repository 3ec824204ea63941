package web_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// GET /api/v1/usage/accounting answers as GET /api/v1/accounting does,
// and ?period= names the kind of period: alone the current one (the
// fixture's clock stands on Wednesday 18 November 2026), beside month or
// week the same kind, never with a range.
func TestAccountingPeriods(t *testing.T) {
	t.Parallel()
	f := accountingFixture(t)
	t.Run("the same answer beside the usage", func(t *testing.T) {
		t.Parallel()
		st1, a := f.s.Do(t, "GET", "/api/v1/accounting?month=2026-11&by=team", f.adminTok, "")
		st2, b := f.s.Do(t, "GET", "/api/v1/usage/accounting?period=month&month=2026-11&by=team", f.adminTok, "")
		if st1 != 200 || st2 != 200 {
			t.Fatalf("%d %s / %d %s", st1, a, st2, b)
		}
		if d := cmp.Diff(string(a), string(b)); d != "" {
			t.Errorf("answers differ (-accounting +usage/accounting):\n%s", d)
		}
	})
	periods := map[string]struct{ query, want string }{
		"period=month alone":  {"?period=month", "2026-11"},
		"period=week alone":   {"?period=week", "2026-W47"},
		"week without period": {"?week=2026-W47", "2026-W47"},
		"month and period":    {"?period=month&month=2026-10", "2026-10"},
	}
	for name, tc := range periods {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := f.accountingOf(t, f.adminTok, tc.query).Period; got != tc.want {
				t.Errorf("period %q, want %q", got, tc.want)
			}
		})
	}
	refused := map[string]string{
		"a period that is not one":  "?period=year",
		"period and the other kind": "?period=week&month=2026-11",
		"period and a range":        "?period=month&from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z",
	}
	for name, q := range refused {
		t.Run("refused: "+name, func(t *testing.T) {
			t.Parallel()
			st, body := f.s.Do(t, "GET", "/api/v1/usage/accounting"+q, f.bobTok, "")
			if st != 400 {
				t.Fatalf("%s: %d %s", q, st, body)
			}
			if msg, code := testserver.APIError(t, body); msg == "" || code == "" {
				t.Errorf("%s: no error sentence: %s", q, body)
			}
		})
	}
}
