package web_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// historyFixture is a cluster's past: node sim-node-1 (8 GPUs, drained so
// nothing new starts), ana in team vision, bob in none, and their jobs.
type historyFixture struct {
	s              *testserver.Server
	now            time.Time
	gpus           []int64
	ana, bob       *models.User
	anaTok, bobTok string
	adminTok       string
	vision         *models.Team
	twice, failed  int64 // ana's job run twice (preempted, then completed); bob's failed one
	canceled, old  int64 // ana's canceled before it ran; bob's completed three days ago
	running        int64 // bob's, still running: not history
	small          []int64
	twiceRuns      []testdb.Run
}

// historyNow is the fixture's fixed clock: a Wednesday noon, on a whole
// minute (minutes are what telemetry roll-ups count), in the middle of its
// ISO week and month so that week and month reports hold every job.
var historyNow = time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)

// newHistoryFixture writes the fixture; the server's clock stands at
// historyNow and no background work runs (Manual), so no pass, sweep or
// node timeout can end the running job or start another while a test
// reads: every figure is fixed by what the fixture wrote.
func newHistoryFixture(t *testing.T) *historyFixture {
	t.Helper()
	now := historyNow
	f := &historyFixture{now: now}
	f.s = testserver.NewWith(t, testserver.Options{Manual: true, Configure: func(_ string, h *handlers.Handlers) {
		h.Now = func() time.Time { return now }
	}})
	s, ctx := f.s, context.Background()
	nodeTok, node := s.NodeToken(t, "sim-node-1")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBodyFor(node.Name, 8)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	f.adminTok, _ = s.UserToken(t, models.RoleAdmin)
	if st, body := s.Do(t, "POST", "/api/v1/cluster/nodes/sim-node-1/drain", f.adminTok, ""); st != 200 {
		t.Fatalf("drain: %d %s", st, body)
	}
	if err := s.DB.Bun.NewRaw(`SELECT id FROM gpus WHERE node_id = ? ORDER BY idx`, node.ID).Scan(ctx, &f.gpus); err != nil || len(f.gpus) != 8 {
		t.Fatalf("gpus: %v %v", f.gpus, err)
	}
	var err error
	if f.vision, err = models.CreateTeam(ctx, s.DB.Bun, "vision", 1, nil); err != nil {
		t.Fatal(err)
	}
	f.anaTok, f.ana = s.UserToken(t, models.RoleMember)
	f.bobTok, f.bob = s.UserToken(t, models.RoleMember)
	if err := models.SetUserTeam(ctx, s.DB.Bun, f.ana.ID, &f.vision.ID); err != nil {
		t.Fatal(err)
	}
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	f.twiceRuns = []testdb.Run{
		{GPUs: f.gpus[:2], Start: ago(13 * time.Hour), End: ago(12 * time.Hour), Reason: "preempted"},
		{GPUs: f.gpus[4:6], Start: ago(2 * time.Hour), End: ago(time.Hour), Reason: "completed"},
	}
	job := func(u *models.User, gpus int, state string, runs ...testdb.Run) int64 {
		j := testdb.Job(t, s.DB, u, gpus)
		testdb.History(t, s.DB, j, state, nil, runs...)
		return j.ID
	}
	f.twice = job(f.ana, 2, models.JobCompleted, f.twiceRuns...)
	f.failed = job(f.bob, 1, models.JobFailed, testdb.Run{GPUs: f.gpus[2:3], Start: ago(5 * time.Hour), End: ago(4 * time.Hour), Reason: "failed"})
	f.canceled = job(f.ana, 1, models.JobCanceled)
	f.old = job(f.bob, 1, models.JobCompleted, testdb.Run{GPUs: f.gpus[3:4], Start: ago(73 * time.Hour), End: ago(72 * time.Hour), Reason: "completed"})
	f.running = job(f.bob, 1, models.JobRunning, testdb.Run{GPUs: f.gpus[6:7], Start: ago(30 * time.Minute)})
	for i := range 3 { // ended 10, 20, 30 minutes ago
		f.small = append(f.small, job(f.bob, 1, models.JobCompleted,
			testdb.Run{GPUs: f.gpus[7:8], Start: ago(time.Duration(i+1)*10*time.Minute + 5*time.Minute), End: ago(time.Duration(i+1) * 10 * time.Minute)}))
	}
	// What the lifecycle records beside the runs: exit codes, a reason, a restart, the cancel's end.
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE jobs SET exit_code = 0, restart_count = 1 WHERE id = ?`, []any{f.twice}},
		{`UPDATE jobs SET exit_code = 3, failure_reason = 'exited with status 3' WHERE id = ?`, []any{f.failed}},
		{`UPDATE jobs SET ended_at = ?, failure_reason = 'canceled by its owner' WHERE id = ?`, []any{ago(3 * time.Hour), f.canceled}},
		{`UPDATE jobs SET exit_code = 0 WHERE state = 'completed' AND exit_code IS NULL AND owner_id = ?`, []any{f.bob.ID}},
	} {
		if _, err := s.DB.Bun.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// history reads GET /api/v1/history?query as tok.
func (f *historyFixture) history(t *testing.T, tok, query string) (int, api.History, []byte) {
	t.Helper()
	st, body := f.s.Do(t, "GET", "/api/v1/history"+query, tok, "")
	var h api.History
	if st == 200 {
		if err := json.Unmarshal(body, &h); err != nil {
			t.Fatalf("history %s: %v\n%s", query, err, body)
		}
	}
	return st, h, body
}

func jobIDs(h api.History) []int64 {
	out := []int64{}
	for _, j := range h.Jobs {
		out = append(out, j.ID)
	}
	return out
}
