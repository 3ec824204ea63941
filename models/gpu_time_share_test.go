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

// A slot of a GPU shared four ways counts as a quarter of a GPU in fair
// share and on the usage page: a half share (two slots) held for four hours
// is two GPU-hours. The snapshot offers the slots as such (SharedSlots), and
// a share job's request reaches the scheduler.
func TestUsageCountsSharesByFraction(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	now := testdb.Now
	node, err := models.EnsureNode(ctx, db.Bun, "shared-node")
	if err != nil {
		t.Fatal(err)
	}
	parent := "GPU-shared-0"
	var inv []models.GPUInventory
	for k := range 4 {
		inv = append(inv, models.GPUInventory{Index: 0, UUID: parent + "/share-" + string(rune('1'+k)) + "-of-4", Model: "NVIDIA H100 80GB HBM3",
			MemoryMiB: 20389, Kind: models.GPUShare, ParentUUID: &parent, Slices: 1, ParentSlices: 4})
	}
	if err := models.RegisterNode(ctx, db.Bun, node.ID, "shared.local", "test", inv, now); err != nil {
		t.Fatal(err)
	}
	var slots []int64
	if err := db.Bun.NewSelect().Model((*models.GPU)(nil)).Column("id").Where("node_id = ?", node.ID).OrderExpr("uuid").Scan(ctx, &slots); err != nil {
		t.Fatal(err)
	}
	ana := testdb.User(t, db, models.RoleMember)
	testdb.History(t, db, testdb.Job(t, db, ana, 1), models.JobCompleted, nil,
		testdb.Run{GPUs: slots[:2], Start: now.Add(-5 * time.Hour), End: now.Add(-time.Hour), Reason: "completed"})
	queued := &models.Job{Name: "quarter", OwnerID: ana.ID, Command: "python eval.py", GPUCount: 1, GPUShare: 0.25, ShareMemoryMiB: 10240}
	if err := models.CreateJob(ctx, db.Pool, queued, now); err != nil {
		t.Fatal(err)
	}

	snap, _, err := models.LoadSnapshot(ctx, db.Bun, now, 0, scoring.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Users[ana.ID].Usage / 3600; math.Abs(got-2) > 1e-9 {
		t.Errorf("fair share usage = %v GPU-h, want 2", got)
	}
	page, err := models.GPUHoursOver(ctx, db.Bun, models.NewUsageRange(now, 24*time.Hour, 24), now, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tot := range page.UserTotals {
		if tot.Name == ana.Name && math.Abs(tot.Hours-2) > 1e-9 {
			t.Errorf("usage page = %v GPU-h, want 2", tot.Hours)
		}
	}
	slotsOf := map[int]int{}
	for _, g := range snap.GPUs {
		slotsOf[g.SharedSlots]++
	}
	if diff := cmp.Diff(map[int]int{4: 4}, slotsOf); diff != "" {
		t.Errorf("snapshot devices by SharedSlots (-want +got):\n%s", diff)
	}
	if len(snap.Pending) != 1 || snap.Pending[0].GPUShare != 0.25 || snap.Pending[0].GPUShareMemoryMiB != 10240 {
		t.Errorf("pending in the snapshot: %+v, want the quarter share with 10240 MiB", snap.Pending)
	}
}
