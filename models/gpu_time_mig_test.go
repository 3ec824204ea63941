package models_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A MIG device counts as its fraction of a GPU (compute slices over the
// GPU's seven) in fair share, the standing and the usage page alike: two
// 1g.10gb slices held for seven hours are two GPU-hours, beside a whole GPU
// held for an hour.
func TestUsageCountsSlicesByFraction(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	now := testdb.Now
	_, slices := testdb.MIGNode(t, db, 1, 7)
	_, whole := testdb.Node(t, db, 1)
	ana, bob := testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember)
	testdb.History(t, db, testdb.Job(t, db, ana, 2), models.JobCompleted, nil,
		testdb.Run{GPUs: slices[:2], Start: now.Add(-8 * time.Hour), End: now.Add(-time.Hour), Reason: "completed"})
	testdb.History(t, db, testdb.Job(t, db, bob, 1), models.JobCompleted, nil,
		testdb.Run{GPUs: whole, Start: now.Add(-2 * time.Hour), End: now.Add(-time.Hour), Reason: "completed"})

	snap, _, err := models.LoadSnapshot(ctx, db.Bun, now, 0, scoring.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	page, err := models.GPUHoursOver(ctx, db.Bun, models.NewUsageRange(now, 24*time.Hour, 24), now, 0)
	if err != nil {
		t.Fatal(err)
	}
	pageHours := map[string]float64{}
	for _, tot := range page.UserTotals {
		pageHours[tot.Name] = tot.Hours
	}
	tests := map[string]struct {
		user *models.User
		want float64 // GPU-hours
	}{
		"two 1g slices for 7 h": {ana, 2},
		"a whole GPU for 1 h":   {bob, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := snap.Users[tc.user.ID].Usage / 3600; math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("fair share usage = %v GPU-h, want %v", got, tc.want)
			}
			if got := pageHours[tc.user.Name]; math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("usage page = %v GPU-h, want %v", got, tc.want)
			}
		})
	}
	count := map[string]int{}
	for _, g := range snap.GPUs {
		count[g.Profile]++
	}
	if diff := cmp.Diff(map[string]int{"1g.10gb": 7, "": 1}, count); diff != "" {
		t.Errorf("snapshot devices by profile (-want +got):\n%s", diff)
	}
}
