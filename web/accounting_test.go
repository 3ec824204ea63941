package web_test

import (
	"context"
	"encoding/csv"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// accountingFixture adds to the history fixture what accounting counts
// beyond GPU time: rates, ana's booking of 2 GPUs over the 2 hours before
// her second run ended (the first hour unused, then one GPU busy and one
// idle by its roll-ups), and bob's failed run ended by the idle policy
// after half an hour idle.
func accountingFixture(t *testing.T) *historyFixture {
	t.Helper()
	f := newHistoryFixture(t)
	ctx, db := context.Background(), f.s.DB.Bun
	cfg, err := models.SchedulerConfig(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CostRates, cfg.Currency = map[string]float64{"H100": 2.5}, "EUR"
	if err := models.PutSchedulerConfig(ctx, db, cfg, nil, f.now); err != nil {
		t.Fatal(err)
	}
	ago := func(d time.Duration) time.Time { return f.now.Add(-d) }
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO bookings (user_id, kind, gpu_count, starts_at, ends_at, note) VALUES (?, 'booking', 2, ?, ?, 'paper deadline')`,
			[]any{f.ana.ID, ago(3 * time.Hour), ago(time.Hour)}},
		// Her second run's GPUs, minute by minute: sim-node-1:4 busy, :5 idle.
		{`INSERT INTO gpu_rollups (resolution_s, bucket, gpu_id, node_id, samples, utilization_avg, utilization_max, memory_used_avg, temperature_max, power_avg)
SELECT 60, ts, g.id, g.node_id, 2, CASE WHEN g.idx = 4 THEN 90 ELSE 0 END, CASE WHEN g.idx = 4 THEN 95 ELSE 1 END, 0, 40, 100
FROM gpus g, generate_series(?::timestamptz, ?::timestamptz - interval '1 minute', interval '1 minute') AS ts WHERE g.id IN (?, ?)`,
			[]any{ago(2 * time.Hour), ago(time.Hour), f.gpus[4], f.gpus[5]}},
		{`UPDATE allocations SET end_cause = 'reclaimed' WHERE job_id = ?`, []any{f.failed}},
		{`INSERT INTO job_idle (job_id, idle_since, reclaimed_at, gpu_count) VALUES (?, ?, ?, 1)`,
			[]any{f.failed, ago(270 * time.Minute), ago(4 * time.Hour)}},
		{`UPDATE users SET name = ? WHERE id = ?`, []any{"=HYPERLINK(\"http://x\")", f.bob.ID}},
	} {
		if _, err := db.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// accountingOf reads GET /api/v1/accounting?query as tok.
func (f *historyFixture) accountingOf(t *testing.T, tok, query string) api.Accounting {
	t.Helper()
	st, body := f.s.Do(t, "GET", "/api/v1/accounting"+query, tok, "")
	if st != 200 {
		t.Fatalf("accounting %s: %d %s", query, st, body)
	}
	var a api.Accounting
	mustJSON(t, body, &a)
	return a
}

// Accounting counts GPU time as the usage page does (the same intervals,
// the same arithmetic), a job run twice included: over the usage page's
// own range, per user and per team, the figures agree; the idle policy's
// reclaims agree with its "Idle GPU-hours ended"; booked-but-idle and cost
// come out as the fixture says.
func TestAccountingAgreesWithUsage(t *testing.T) {
	t.Parallel()
	f := accountingFixture(t)
	st, body := f.s.Do(t, "GET", "/api/v1/usage?range=week", f.adminTok, "")
	if st != 200 {
		t.Fatalf("usage: %d %s", st, body)
	}
	var u handlers.UsageJSON
	mustJSON(t, body, &u)
	span := "?from=" + url.QueryEscape(time.Unix(u.From, 0).UTC().Format(time.RFC3339)) + "&to=" + url.QueryEscape(time.Unix(u.To, 0).UTC().Format(time.RFC3339))
	near := func(t *testing.T, what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s: %.6f, want %.6f", what, got, want)
		}
	}
	for by, totals := range map[string][]models.GPUHoursTotal{"user": u.GPUHours.UserTotals, "team": u.GPUHours.TeamTotals} {
		t.Run("by "+by, func(t *testing.T) {
			a := f.accountingOf(t, f.adminTok, span+"&by="+by)
			usage := map[string]float64{}
			for _, tot := range totals {
				usage[tot.Name] = tot.Hours
			}
			got := map[string]float64{}
			sum := 0.0
			for _, r := range a.Rows {
				got[r.Name] = r.GPUHours
				sum += r.GPUHours
			}
			if d := cmp.Diff(usage, got, cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) < 1e-6 })); d != "" {
				t.Errorf("GPU-hours by %s, usage page (-) and accounting (+):\n%s", by, d)
			}
			near(t, "total", a.Total.GPUHours, sum)
			near(t, "reclaimed, as the usage page's idle GPU-hours ended", a.Total.ReclaimedGPUHours, u.Idle.ReclaimedHours)
		})
	}

	a := f.accountingOf(t, f.adminTok, span+"&by=user")
	rows := map[string]api.AccountingRow{}
	for _, r := range a.Rows {
		rows[r.Email] = r
	}
	ana, bob := rows[f.ana.Email], rows[f.bob.Email]
	near(t, "ana's GPU-hours: two runs of 2 GPUs for an hour", ana.GPUHours, 4)
	near(t, "ana's booked-but-idle: 2 GPU-h unheld, then 1 idle", ana.BookedIdleGPUHours, 3)
	near(t, "ana's cost at 2.5 EUR", ana.Cost, 10)
	near(t, "bob's GPU-hours: 1 failed, 1 old, 3 × 5 min, 30 min running", bob.GPUHours, 2.75)
	near(t, "bob's reclaimed: 1 GPU idle 30 min", bob.ReclaimedGPUHours, 0.5)
	near(t, "bob's booked-but-idle", bob.BookedIdleGPUHours, 0)
	if ana.Team != "vision" || a.Currency != "EUR" || a.Rates["H100"] != 2.5 || len(a.UnpricedModels) != 0 {
		t.Errorf("ana's team %q, currency %q, rates %v, unpriced %v", ana.Team, a.Currency, a.Rates, a.UnpricedModels)
	}
	if len(ana.Models) != 1 || ana.Models[0].Rate == nil || *ana.Models[0].Rate != 2.5 {
		t.Errorf("ana's models: %+v", ana.Models)
	}
}

// Admins see every row; members their own and their team's; the CSV
// holds the same figures with every text cell safe from formulas.
func TestAccountingVisibilityAndCSV(t *testing.T) {
	t.Parallel()
	f := accountingFixture(t)
	// The last week (a month's start may fall between the fixture's runs).
	month := "?from=" + url.QueryEscape(f.now.AddDate(0, 0, -7).Format(time.RFC3339)) + "&to=" + url.QueryEscape(f.now.Add(time.Hour).Format(time.RFC3339))
	names := func(a api.Accounting) []string {
		out := []string{}
		for _, r := range a.Rows {
			out = append(out, r.Name)
		}
		return out
	}
	tests := map[string]struct {
		tok, query string
		want       int // rows
		only       string
	}{
		"admin, by user":          {f.adminTok, month + "&by=user", 2, ""},
		"admin, by team":          {f.adminTok, month + "&by=team", 2, ""},
		"member, by user":         {f.anaTok, month + "&by=user", 1, f.ana.Name},
		"member, by team":         {f.anaTok, month + "&by=team", 1, "vision"},
		"member without a team":   {f.bobTok, month + "&by=team", 0, ""},
		"member without, by user": {f.bobTok, month + "&by=user", 1, "=HYPERLINK(\"http://x\")"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := f.accountingOf(t, tc.tok, tc.query)
			if len(a.Rows) != tc.want || (tc.only != "" && a.Rows[0].Name != tc.only) {
				t.Errorf("rows %v, want %d (%q)", names(a), tc.want, tc.only)
			}
		})
	}

	st, body := f.s.Do(t, "GET", "/api/v1/accounting"+month+"&by=user&format=csv", f.adminTok, "")
	if st != 200 {
		t.Fatalf("csv: %d %s", st, body)
	}
	recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[0][5] != "name" || recs[3][5] != "Total" {
		t.Fatalf("sheet: %q", recs)
	}
	for _, rec := range recs[1:] {
		if rec[6] == f.bob.Email && rec[5] != `'=HYPERLINK("http://x")` {
			t.Errorf("bob's name is not neutralised: %q", rec[5])
		}
		if rec[6] == f.ana.Email && (rec[8] != "4.00" || rec[9] != "3.00" || rec[11] != "10.00" || rec[12] != "EUR") {
			t.Errorf("ana's row: %q", rec)
		}
	}
	for _, q := range []string{"?by=nobody", "?month=2026-13", "?week=2026-W60", "?month=2026-11&week=2026-W48", "?from=x&to=y", "?tz=Mars/Base", "?format=xml"} {
		if st, body := f.s.Do(t, "GET", "/api/v1/accounting"+q, f.anaTok, ""); st != 400 {
			t.Errorf("%s: %d %s", q, st, body)
		}
	}
	// A month and a week read as such.
	for _, q := range []string{"?month=" + f.now.Format("2006-01"), "?week=2026-W48&tz=Europe/Berlin"} {
		a := f.accountingOf(t, f.anaTok, q)
		if a.Period == "" || !a.To.After(a.From) {
			t.Errorf("%s: period %q %s–%s", q, a.Period, a.From, a.To)
		}
	}
}
