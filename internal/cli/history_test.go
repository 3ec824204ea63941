package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// pastNow is the clock pastCluster's server reads: Wednesday noon, so
// that its ISO week and month hold every job of the fixture.
var pastNow = time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)

// pastCluster is a server with node sim-node-1 (4 GPUs, drained), a
// member whose token the commands use, and their ended jobs: one run
// twice and completed, one failed 2 days ago, one canceled; another
// member's failed job. Its clock stands at pastNow and no background work
// runs, so what the commands print depends on neither the day nor the load.
func pastCluster(t *testing.T) (s *testserver.Server, me *models.User, twice, failed, other int64) {
	t.Helper()
	s = testserver.NewWith(t, testserver.Options{Manual: true, Configure: func(_ string, h *handlers.Handlers) {
		h.Now = func() time.Time { return pastNow }
	}})
	ctx := context.Background()
	nodeTok, node := s.NodeToken(t, "sim-node-1")
	body := `{"hostname":"a","gpus":[` + strings.Join([]string{
		`{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}`, `{"index":1,"uuid":"G1","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}`,
		`{"index":2,"uuid":"G2","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}`, `{"index":3,"uuid":"G3","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}`}, ",") + `]}`
	if st, b := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, body); st != 200 {
		t.Fatalf("register: %d %s", st, b)
	}
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	if st, b := s.Do(t, "POST", "/api/v1/cluster/nodes/sim-node-1/drain", adminTok, ""); st != 200 {
		t.Fatalf("drain: %d %s", st, b)
	}
	var gpus []int64
	if err := s.DB.Bun.NewRaw(`SELECT id FROM gpus WHERE node_id = ? ORDER BY idx`, node.ID).Scan(ctx, &gpus); err != nil {
		t.Fatal(err)
	}
	tok, me := s.UserToken(t, models.RoleMember)
	_, you := s.UserToken(t, models.RoleMember)
	now := pastNow
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	job := func(u *models.User, state string, runs ...testdb.Run) int64 {
		j := testdb.Job(t, s.DB, u, 2)
		testdb.History(t, s.DB, j, state, nil, runs...)
		return j.ID
	}
	twice = job(me, models.JobCompleted, testdb.Run{GPUs: gpus[:2], Start: ago(5 * time.Hour), End: ago(4 * time.Hour)},
		testdb.Run{GPUs: gpus[2:4], Start: ago(90 * time.Minute), End: ago(30 * time.Minute)})
	failed = job(me, models.JobFailed, testdb.Run{GPUs: gpus[:1], Start: ago(49 * time.Hour), End: ago(48 * time.Hour)})
	canceled := job(me, models.JobCanceled)
	other = job(you, models.JobFailed, testdb.Run{GPUs: gpus[1:2], Start: ago(3 * time.Hour), End: ago(2 * time.Hour)})
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE jobs SET exit_code = 0, restart_count = 1 WHERE id = ?`, []any{twice}},
		{`UPDATE jobs SET exit_code = 137 WHERE id = ?`, []any{failed}},
		{`UPDATE jobs SET ended_at = ? WHERE id = ?`, []any{ago(time.Hour), canceled}},
		{`UPDATE jobs SET exit_code = 1 WHERE id = ?`, []any{other}},
	} {
		if _, err := s.DB.Bun.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	// What localZoneName reads, for the zone the CLI sends. The times it
	// prints are in time.Local, fixed when the process started: it is not
	// set here, since writing it races every goroutine that reads the clock.
	t.Setenv("TZ", "Europe/Berlin")
	return s, me, twice, failed, other
}

// gpusched history lists ended jobs like sacct, filters by owner, span and
// state, and prints the API's JSON.
func TestHistoryCommand(t *testing.T) {
	_, me, twice, failed, other := pastCluster(t)

	out, err := gpusched(t, "history", "--mine")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "ID") || lines[4] != "3 jobs" {
		t.Fatalf("history --mine:\n%s", out)
	}
	// The run-twice job: exit 0, two hours held in two runs, 4 GPU-hours, the last run's GPUs, one retry.
	row := regexp.MustCompile(fmt.Sprintf(`(?m)^%d +\S+ +%s +completed +0 +\S+ \S+ \S+ +02:00:00 +4\.00 +sim-node-1:2,3 +1$`, twice, regexp.QuoteMeta(me.Email)))
	if !row.MatchString(out) {
		t.Errorf("no row for the job run twice in:\n%s", out)
	}
	if zone := time.Now().Format("MST"); !strings.Contains(out, zone) {
		t.Errorf("times not in the machine's zone (%s):\n%s", zone, out)
	}

	tests := map[string]struct {
		args []string
		want []int64
	}{
		"everyone's failed":         {[]string{"--state", "failed"}, []int64{other, failed}},
		"mine, failed, last 7 days": {[]string{"--mine", "--since", "7d", "--state", "failed"}, []int64{failed}},
		"mine, last day":            {[]string{"--mine", "--since", "24h", "--state", "completed,failed"}, []int64{twice}},
		"one of them":               {[]string{"-n", "1"}, []int64{twice}},
		"past the page size":        {[]string{"--mine", "-n", "300"}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, err := gpusched(t, append([]string{"history", "--json"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			var jobs []api.HistoryJob
			if err := json.Unmarshal([]byte(out), &jobs); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if tc.want == nil {
				if len(jobs) != 3 {
					t.Errorf("%d jobs", len(jobs))
				}
				return
			}
			got := []int64{}
			for _, j := range jobs {
				got = append(got, j.ID)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("jobs (-want +got):\n%s", d)
			}
		})
	}
	if _, err := gpusched(t, "history", "--state", "running"); err == nil || !strings.Contains(err.Error(), "completed, failed, canceled or timeout") {
		t.Errorf("a state that is not an end: %v", err)
	}
}

// gpusched usage prints accounting as a table, CSV or JSON, per user or team.
func TestUsageCommand(t *testing.T) {
	s, me, _, _, _ := pastCluster(t)
	ctx := context.Background()
	cfg, err := models.SchedulerConfig(ctx, s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CostRates, cfg.Currency = map[string]float64{"H100": 2}, "EUR"
	if err := models.PutSchedulerConfig(ctx, s.DB.Bun, cfg, nil, pastNow); err != nil {
		t.Fatal(err)
	}
	out, err := gpusched(t, "usage", "--week", "2026-W47", "--by", "user", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var a api.Accounting
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if a.TimeZone != "Europe/Berlin" || a.By != "user" || a.Period != "2026-W47" || len(a.Rows) != 1 || a.Rows[0].Email != me.Email {
		t.Fatalf("accounting: %+v", a)
	}
	// The run-twice job's 4 GPU-hours and the failed one's 1 (one GPU), at 2 EUR each.
	if r := a.Rows[0]; r.GPUHours != 5 || r.Cost != 10 {
		t.Errorf("my row: %v GPU-hours, cost %v; want 5 and 10", r.GPUHours, r.Cost)
	}

	out, err = gpusched(t, "usage", "--by", "user")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^USER +GPU-H +BOOKED-IDLE +RECLAIMED +COST \(EUR\)$`).MatchString(out) ||
		!strings.Contains(out, me.Email) || !regexp.MustCompile(`(?m)^Total +\d+\.\d\d`).MatchString(out) {
		t.Errorf("usage table:\n%s", out)
	}

	month := "2026-11"
	out, err = gpusched(t, "usage", "--month", month, "--by", "team", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 2 || recs[0][0] != "period" || recs[1][0] != month || recs[1][3] != "Europe/Berlin" || recs[len(recs)-1][5] != "Total" {
		t.Errorf("usage csv (%v):\n%s", err, out)
	}
	for _, bad := range [][]string{{"--by", "group"}, {"--format", "xml"}, {"--month", "2026-13"}, {"--month", "2026-11", "--week", "2026-W48"}} {
		if _, err := gpusched(t, append([]string{"usage"}, bad...)...); err == nil {
			t.Errorf("usage %v: no error", bad)
		}
	}
}
