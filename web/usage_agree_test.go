package web_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The usage API's GPU-hours and fair-share standing, and the scheduler's
// snapshot at the same instant, count the same allocation intervals: a job
// run twice (2 × 1 h on 4 GPUs, 10 h between) is charged 8 GPU-hours, a
// preempted run its own time, a live run up to now.
func TestUsageAPIAgreesWithFairShare(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC().Truncate(time.Second)
	s := testserver.NewWith(t, testserver.Options{Configure: func(_ string, h *handlers.Handlers) {
		h.Now = func() time.Time { return now } // the API reads usage at this instant
	}})
	ctx := context.Background()
	nodeTok, node := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(8)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	// Drained, the node takes no new work: the runs below are all it holds.
	if st, body := s.Do(t, "POST", "/api/v1/cluster/nodes/"+node.Name+"/drain", adminTok, ""); st != 200 {
		t.Fatalf("drain: %d %s", st, body)
	}
	var gpus []int64
	if err := s.DB.Bun.NewRaw(`SELECT id FROM gpus WHERE node_id = ? ORDER BY idx`, node.ID).Scan(ctx, &gpus); err != nil || len(gpus) != 8 {
		t.Fatalf("gpus: %v %v", gpus, err)
	}
	vision, err := models.CreateTeam(ctx, s.DB.Bun, "vision", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, ana := s.UserToken(t, models.RoleMember)
	_, bob := s.UserToken(t, models.RoleMember)
	if err := models.SetUserTeam(ctx, s.DB.Bun, ana.ID, &vision.ID); err != nil {
		t.Fatal(err)
	}
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	twice := []testdb.Run{
		{GPUs: gpus[:4], Start: ago(13 * time.Hour), End: ago(12 * time.Hour), Reason: "preempted"},
		{GPUs: gpus[4:], Start: ago(2 * time.Hour), End: ago(time.Hour), Reason: "completed"},
	}
	preempted := testdb.Run{GPUs: gpus[:2], Start: ago(6 * time.Hour), End: ago(270 * time.Minute), Reason: "preempted"}
	running := testdb.Run{GPUs: gpus[2:3], Start: ago(3 * time.Hour)}
	testdb.History(t, s.DB, testdb.Job(t, s.DB, ana, 4), models.JobCompleted, nil, twice...)
	testdb.History(t, s.DB, testdb.Job(t, s.DB, bob, 2), models.JobQueued, nil, preempted)
	testdb.History(t, s.DB, testdb.Job(t, s.DB, bob, 1), models.JobRunning, &vision.ID, running)

	st, body := s.Do(t, "GET", "/api/v1/usage?range=day", adminTok, "")
	if st != 200 {
		t.Fatalf("usage: %d %s", st, body)
	}
	var u handlers.UsageJSON
	mustJSON(t, body, &u)
	cfg, err := models.SchedulerConfig(ctx, s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	halfLife := time.Duration(cfg.FairShare.HalfLife)
	snap, _, err := models.LoadSnapshot(ctx, s.DB.Bun, now, halfLife, scoring.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	apiHours, apiStanding := map[string]float64{}, map[string]float64{}
	for _, tot := range append(u.GPUHours.TeamTotals, u.GPUHours.UserTotals...) {
		apiHours[tot.Name] = tot.Hours
	}
	for _, st := range append(u.FairShare.Teams, u.FairShare.Users...) {
		apiStanding[st.Name] = st.DecayedGPUH
	}

	decayed := func(runs ...testdb.Run) float64 {
		sum := 0.0
		for _, r := range runs {
			end := r.End
			if end.IsZero() {
				end = now
			}
			sum += scheduler.DecayedUsage(len(r.GPUs), r.Start, end, now, halfLife)
		}
		return sum
	}
	tests := map[string]struct {
		name        string
		fairShare   scheduler.Principal
		wantHours   float64 // GPU-hours of the allocation intervals
		wantDecayed float64 // the same, decayed to now (GPU-seconds)
	}{
		"multi-attempt user": {ana.Name, snap.Users[ana.ID], 8, decayed(twice...)},
		"preempted and running user": {bob.Name, snap.Users[bob.ID], 3 + 3,
			decayed(preempted, running)},
		"team": {"vision", snap.Teams[vision.ID], 8 + 3, decayed(append(twice, running)...)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// To the second: within a millisecond of GPU time.
			near := func(what string, gotS, wantS float64) {
				t.Helper()
				if math.Abs(gotS-wantS) > 1e-3 {
					t.Errorf("%s: %.4f GPU-s, want %.4f GPU-s", what, gotS, wantS)
				}
			}
			near("API GPU-hours", apiHours[tc.name]*3600, tc.wantHours*3600)
			near("API fair-share standing", apiStanding[tc.name]*3600, tc.wantDecayed)
			near("scheduler fair share", tc.fairShare.Usage, tc.wantDecayed)
			if tc.fairShare.Name != tc.name {
				t.Errorf("snapshot names it %q, the API %q", tc.fairShare.Name, tc.name)
			}
		})
	}
	if got := apiHours["(no team)"]; math.Abs(got*3600-3*3600) > 1e-3 {
		t.Errorf("(no team): %v GPU-hours, want 3 (the preempted run)", got)
	}
}
