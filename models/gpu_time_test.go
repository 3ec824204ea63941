package models_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// usageScenario is a small history, as of testdb.Now: ana (team vision)
// ran a job twice for an hour on 4 GPUs with 10 hours between; bob (no
// team) had a 2-GPU job preempted after 90 minutes and back in the queue,
// and holds 1 GPU for 3 hours now in a job charged to team vision; a day's
// 8-GPU run of ana's 40 days ago is past the month and the decay horizon.
type usageScenario struct {
	ana, bob *models.User
	vision   *models.Team
	runs     []chargedRun // every run within the horizon and the month
}

// chargedRun is a run as the test expects it charged.
type chargedRun struct {
	user, team int64
	testdb.Run
}

func newUsageScenario(t *testing.T, db *models.DB, now time.Time) usageScenario {
	t.Helper()
	ctx := context.Background()
	var sc usageScenario
	var err error
	if sc.vision, err = models.CreateTeam(ctx, db.Bun, "vision", 1, nil); err != nil {
		t.Fatal(err)
	}
	sc.ana, sc.bob = testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember)
	if err := models.SetUserTeam(ctx, db.Bun, sc.ana.ID, &sc.vision.ID); err != nil {
		t.Fatal(err)
	}
	_, gpus := testdb.Node(t, db, 8)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	twice := []testdb.Run{
		{GPUs: gpus[:4], Start: ago(13 * time.Hour), End: ago(12 * time.Hour), Reason: "preempted"},
		{GPUs: gpus[4:8], Start: ago(2 * time.Hour), End: ago(time.Hour), Reason: "completed"},
	}
	preempted := testdb.Run{GPUs: gpus[:2], Start: ago(6 * time.Hour), End: ago(270 * time.Minute), Reason: "preempted"}
	running := testdb.Run{GPUs: gpus[2:3], Start: ago(3 * time.Hour)}
	old := testdb.Run{GPUs: gpus, Start: ago(40 * 24 * time.Hour), End: ago(39 * 24 * time.Hour), Reason: "completed"}

	testdb.History(t, db, testdb.Job(t, db, sc.ana, 4), models.JobCompleted, nil, twice...)
	testdb.History(t, db, testdb.Job(t, db, sc.bob, 2), models.JobQueued, nil, preempted)
	testdb.History(t, db, testdb.Job(t, db, sc.bob, 1), models.JobRunning, &sc.vision.ID, running)
	testdb.History(t, db, testdb.Job(t, db, sc.ana, 8), models.JobCompleted, nil, old)
	sc.runs = []chargedRun{{sc.ana.ID, sc.vision.ID, twice[0]}, {sc.ana.ID, sc.vision.ID, twice[1]},
		{sc.bob.ID, 0, preempted}, {sc.bob.ID, sc.vision.ID, running}}
	return sc
}

// charged sums the runs charged to a user (team false) or a team, as
// GPU-seconds decayed to now with halfLife (0: plain), each run its GPUs ×
// its own start → release (or now).
func (sc usageScenario) charged(id int64, team bool, now time.Time, halfLife time.Duration) float64 {
	sum := 0.0
	for _, r := range sc.runs {
		if (!team && r.user == id) || (team && r.team == id) {
			end := r.End
			if end.IsZero() {
				end = now
			}
			sum += scheduler.DecayedUsage(len(r.GPUs), r.Start, end, now, halfLife)
		}
	}
	return sum
}

// The scheduler's fair share (the snapshot's usage), the fair-share
// standing and the usage page's GPU-hours count the same allocation
// intervals: each run its own GPUs × start → release, the wait between a
// job's runs not at all, a live run up to now.
func TestUsageIsAllocationTime(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	now := testdb.Now
	halfLife := 7 * 24 * time.Hour
	sc := newUsageScenario(t, db, now)

	snap, _, err := models.LoadSnapshot(ctx, db.Bun, now, halfLife, scoring.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	teams, users, err := models.FairShareStanding(ctx, db.Bun, now, halfLife)
	if err != nil {
		t.Fatal(err)
	}
	page, err := models.GPUHoursOver(ctx, db.Bun, models.NewUsageRange(now, 30*24*time.Hour, 240), now, 0)
	if err != nil {
		t.Fatal(err)
	}
	standing := map[string]float64{}
	for _, s := range append(teams, users...) {
		standing[s.Name] = s.DecayedGPUH * 3600
	}
	pageTotal := map[string]float64{}
	for _, tot := range append(page.TeamTotals, page.UserTotals...) {
		pageTotal[tot.Name] = tot.Hours * 3600
	}
	pageSeries := map[string]float64{}
	for _, ser := range []models.Series{page.ByTeam, page.ByUser} {
		for i, label := range ser.Labels {
			for _, v := range ser.Values[i] {
				if v != nil {
					pageSeries[label] += *v * 3600
				}
			}
		}
	}

	tests := map[string]struct {
		id          int64
		team        bool
		pageName    string  // as the usage page names it
		wantHours   float64 // plain GPU-hours of allocation intervals
		noFairShare bool    // not a principal of fair share
	}{
		"multi-attempt user":                  {id: sc.ana.ID, pageName: sc.ana.Name, wantHours: 8},
		"preempted and running user, no team": {id: sc.bob.ID, pageName: sc.bob.Name, wantHours: 3 + 3},
		"team of a member and of a job":       {id: sc.vision.ID, team: true, pageName: "vision", wantHours: 8 + 3},
		"no team":                             {id: 0, team: true, pageName: "(no team)", wantHours: 3, noFairShare: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			plain := sc.charged(tc.id, tc.team, now, 0)
			if math.Abs(plain-tc.wantHours*3600) > 1e-9 {
				t.Fatalf("the scenario charges %v GPU-s, the table says %v GPU-h", plain, tc.wantHours)
			}
			// "To the second": every figure within a millisecond of GPU time.
			near := func(what string, got, want float64) {
				t.Helper()
				if math.Abs(got-want) > 1e-3 {
					t.Errorf("%s: %.4f GPU-s (%.4f GPU-h), want %.4f GPU-s (%.4f GPU-h)", what, got, got/3600, want, want/3600)
				}
			}
			near("usage page total", pageTotal[tc.pageName], plain)
			near("usage page buckets", pageSeries[tc.pageName], plain)
			if tc.noFairShare {
				return
			}
			decayed := sc.charged(tc.id, tc.team, now, halfLife)
			var p scheduler.Principal
			if tc.team {
				p = snap.Teams[tc.id]
			} else {
				p = snap.Users[tc.id]
			}
			near("scheduler fair share", p.Usage, decayed)
			near("fair-share standing", standing[p.Name], decayed)
		})
	}
}
