package web_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The usage API's GPU-hours by kind (batch jobs, Jupyter, TensorBoard, web
// sessions) are the per-job GPU-hours of the job history added up by the
// jobs' kind, every kind is listed (zero or not), and together they are
// the GPU-hours by team; the usage page's table shows the same figures.
func TestUsageByKindAgreesWithJobs(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC().Truncate(time.Second)
	s := testserver.NewWith(t, testserver.Options{Configure: func(_ string, h *handlers.Handlers) {
		h.Now = func() time.Time { return now }
	}})
	ctx := context.Background()
	nodeTok, node := s.NodeToken(t, "gpu-k")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(8)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	adminTok, admin := s.UserToken(t, models.RoleAdmin)
	if st, body := s.Do(t, "POST", "/api/v1/cluster/nodes/"+node.Name+"/drain", adminTok, ""); st != 200 {
		t.Fatalf("drain: %d %s", st, body)
	}
	var gpus []int64
	if err := s.DB.Bun.NewRaw(`SELECT id FROM gpus WHERE node_id = ? ORDER BY idx`, node.ID).Scan(ctx, &gpus); err != nil || len(gpus) != 8 {
		t.Fatalf("gpus: %v %v", gpus, err)
	}
	_, ana := s.UserToken(t, models.RoleMember)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	job := func(jobType string, n int, runs ...testdb.Run) {
		t.Helper()
		j := &models.Job{Name: "usage-" + jobType, OwnerID: ana.ID, GPUCount: n, JobType: jobType, Command: "true"}
		if err := models.CreateJob(ctx, s.DB.Pool, j, ago(20*time.Hour)); err != nil {
			t.Fatal(err)
		}
		testdb.History(t, s.DB, j, models.JobCompleted, nil, runs...)
	}
	// Batch: 4 GPUs × 2 h, and a job run twice (2 × 30 min on 2 GPUs);
	// jupyter: 1 × 3 h and 2 × 1 h; tensorboard: 1 × 90 min; web: none.
	job("train", 4, testdb.Run{GPUs: gpus[:4], Start: ago(10 * time.Hour), End: ago(8 * time.Hour), Reason: "completed"})
	job("", 2, testdb.Run{GPUs: gpus[4:6], Start: ago(7 * time.Hour), End: ago(390 * time.Minute), Reason: "preempted"},
		testdb.Run{GPUs: gpus[:2], Start: ago(5 * time.Hour), End: ago(270 * time.Minute), Reason: "completed"})
	job("session-jupyter", 1, testdb.Run{GPUs: gpus[6:7], Start: ago(6 * time.Hour), End: ago(3 * time.Hour), Reason: "canceled"})
	job("session-jupyter", 2, testdb.Run{GPUs: gpus[2:4], Start: ago(3 * time.Hour), End: ago(2 * time.Hour), Reason: "time_limit"})
	job("session-tensorboard", 1, testdb.Run{GPUs: gpus[7:8], Start: ago(2 * time.Hour), End: ago(30 * time.Minute), Reason: "canceled"})
	want := map[string]float64{"batch": 8 + 2, "jupyter": 3 + 2, "tensorboard": 1.5, "web": 0}

	st, body := s.Do(t, "GET", "/api/v1/usage?range=day", adminTok, "")
	if st != 200 {
		t.Fatalf("usage: %d %s", st, body)
	}
	var u handlers.UsageJSON
	mustJSON(t, body, &u)
	st, body = s.Do(t, "GET", "/api/v1/history?limit=100", adminTok, "")
	if st != 200 {
		t.Fatalf("history: %d %s", st, body)
	}
	var hist api.History
	mustJSON(t, body, &hist)
	perJob := map[string]float64{}
	for _, j := range hist.Jobs {
		if strings.HasPrefix(j.Name, "usage-") {
			perJob[models.UsageKindOf(strings.TrimPrefix(j.Name, "usage-"))] += j.GPUHours
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b)*3600 < 1e-3 }
	var kinds []string
	var sum, teams float64
	for _, tot := range u.GPUHours.KindTotals {
		kinds = append(kinds, tot.Name)
		sum += tot.Hours
		if !near(tot.Hours, want[tot.Name]) || !near(tot.Hours, perJob[tot.Name]) {
			t.Errorf("%s: usage says %.4f GPU-hours, the jobs' history %.4f, want %.4f", tot.Name, tot.Hours, perJob[tot.Name], want[tot.Name])
		}
	}
	if strings.Join(kinds, ",") != "batch,jupyter,tensorboard,web" {
		t.Errorf("kinds %v, want every kind in order", kinds)
	}
	for _, tot := range u.GPUHours.TeamTotals {
		teams += tot.Hours
	}
	if !near(sum, teams) {
		t.Errorf("kinds add up to %.4f GPU-hours, teams to %.4f", sum, teams)
	}
	var series float64
	for _, line := range u.GPUHours.ByKind.Values {
		for _, v := range line {
			if v != nil {
				series += *v
			}
		}
	}
	if !near(series, sum) || len(u.GPUHours.ByKind.Labels) != 4 {
		t.Errorf("the by-kind series sums to %.4f over %v, the totals to %.4f", series, u.GPUHours.ByKind.Labels, sum)
	}

	// The page's table: the same figures, named for people.
	page := s.Login(t, admin.Email)
	st, html := fetchPage(t, s, page, "/usage?range=day")
	if st != 200 {
		t.Fatalf("usage page: %d", st)
	}
	i := strings.Index(html, `data-testid="usage-kind-hours"`)
	if i < 0 {
		t.Fatalf("no GPU-hours by kind table")
	}
	table := html[i:]
	table = table[:strings.Index(table, "</table>")]
	for _, row := range []string{"Batch jobs</td><td class=\"num\">10.0", "Jupyter sessions</td><td class=\"num\">5.0",
		"TensorBoard sessions</td><td class=\"num\">1.5", "Web sessions</td><td class=\"num\">0.0"} {
		if !strings.Contains(table, row) {
			t.Errorf("the table lacks %q: %s", row, table)
		}
	}
}
