package testdb

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

var seq atomic.Int64

// Now is the fixed clock fixtures are written at.
var Now = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// User creates a member (or an admin with role "admin") with a unique email.
func User(t testing.TB, db *models.DB, role string) *models.User {
	t.Helper()
	n := seq.Add(1)
	u, err := models.CreateUser(context.Background(), db.Bun, fmt.Sprintf("user%d@example.com", n), fmt.Sprintf("User %d", n), role)
	if err != nil {
		t.Fatalf("fixture user: %v", err)
	}
	return u
}

// Node creates a registered, up node with gpus H100s and returns it with
// their ids in index order.
func Node(t testing.TB, db *models.DB, gpus int) (*models.Node, []int64) {
	t.Helper()
	ctx := context.Background()
	n := seq.Add(1)
	node, err := models.EnsureNode(ctx, db.Bun, fmt.Sprintf("node-%d", n))
	if err != nil {
		t.Fatalf("fixture node: %v", err)
	}
	inv := make([]models.GPUInventory, gpus)
	for i := range inv {
		inv[i] = models.GPUInventory{Index: i, UUID: fmt.Sprintf("GPU-%d-%d", n, i), Model: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559}
	}
	if err := models.RegisterNode(ctx, db.Bun, node.ID, node.Name+".local", "test", inv, Now); err != nil {
		t.Fatalf("fixture node: register: %v", err)
	}
	var ids []int64
	if err := db.Bun.NewSelect().Model((*models.GPU)(nil)).Column("id").Where("node_id = ?", node.ID).OrderExpr("idx").Scan(ctx, &ids); err != nil {
		t.Fatalf("fixture node: gpu ids: %v", err)
	}
	node, err = models.GetNode(ctx, db.Bun, node.ID)
	if err != nil {
		t.Fatalf("fixture node: %v", err)
	}
	return node, ids
}

// MIGNode creates a registered, up node of gpus H100s in MIG mode, each
// split into perGPU MIG devices of profile 1g.10gb (one compute slice of
// seven), and returns it with the devices' ids by GPU, then placement.
func MIGNode(t testing.TB, db *models.DB, gpus, perGPU int) (*models.Node, []int64) {
	t.Helper()
	ctx := context.Background()
	n := seq.Add(1)
	node, err := models.EnsureNode(ctx, db.Bun, fmt.Sprintf("mig-node-%d", n))
	if err != nil {
		t.Fatalf("fixture MIG node: %v", err)
	}
	var inv []models.GPUInventory
	for i := range gpus {
		parent := fmt.Sprintf("GPU-%d-%d", n, i)
		for k := range perGPU {
			inv = append(inv, models.GPUInventory{Index: i, UUID: fmt.Sprintf("MIG-%d-%d-%d", n, i, k), Model: "NVIDIA H100 80GB HBM3",
				MemoryMiB: 9984, Kind: models.GPUMIG, ParentUUID: &parent, Profile: "1g.10gb", Slices: 1, ParentSlices: 7})
		}
	}
	if err := models.RegisterNode(ctx, db.Bun, node.ID, node.Name+".local", "test", inv, Now); err != nil {
		t.Fatalf("fixture MIG node: register: %v", err)
	}
	var ids []int64
	if err := db.Bun.NewSelect().Model((*models.GPU)(nil)).Column("id").Where("node_id = ?", node.ID).OrderExpr("idx, uuid").Scan(ctx, &ids); err != nil {
		t.Fatalf("fixture MIG node: device ids: %v", err)
	}
	if node, err = models.GetNode(ctx, db.Bun, node.ID); err != nil {
		t.Fatalf("fixture MIG node: %v", err)
	}
	return node, ids
}

// SharedNode registers a node of gpus H100s each shared ways ways (the
// slots its agent registers with --shared-gpus), and returns it with its
// slot device ids by index, then UUID.
func SharedNode(t testing.TB, db *models.DB, gpus, ways int) (*models.Node, []int64) {
	t.Helper()
	ctx := context.Background()
	n := seq.Add(1)
	node, err := models.EnsureNode(ctx, db.Bun, fmt.Sprintf("shared-node-%d", n))
	if err != nil {
		t.Fatalf("fixture shared node: %v", err)
	}
	var inv []models.GPUInventory
	for i := range gpus {
		parent := fmt.Sprintf("GPU-S%d-%d", n, i)
		for k := range ways {
			inv = append(inv, models.GPUInventory{Index: i, UUID: fmt.Sprintf("%s::%d", parent, k), Model: "NVIDIA H100 80GB HBM3",
				MemoryMiB: 81559 / int64(ways), Kind: models.GPUShare, ParentUUID: &parent, Slices: 1, ParentSlices: ways})
		}
	}
	if err := models.RegisterNode(ctx, db.Bun, node.ID, node.Name+".local", "test", inv, Now); err != nil {
		t.Fatalf("fixture shared node: register: %v", err)
	}
	var ids []int64
	if err := db.Bun.NewSelect().Model((*models.GPU)(nil)).Column("id").Where("node_id = ?", node.ID).OrderExpr("idx, uuid").Scan(ctx, &ids); err != nil {
		t.Fatalf("fixture shared node: device ids: %v", err)
	}
	if node, err = models.GetNode(ctx, db.Bun, node.ID); err != nil {
		t.Fatalf("fixture shared node: %v", err)
	}
	return node, ids
}

// Job submits a queued job of owner's asking for gpus GPUs.
func Job(t testing.TB, db *models.DB, owner *models.User, gpus int) *models.Job {
	t.Helper()
	j := &models.Job{Name: fmt.Sprintf("job-%d", seq.Add(1)), OwnerID: owner.ID, Command: "python train.py", GPUCount: gpus}
	if err := models.CreateJob(context.Background(), db.Pool, j, Now); err != nil {
		t.Fatalf("fixture job: %v", err)
	}
	return j
}

// Lease submits a queued lease job of owner's asking for gpus GPUs: the
// client runs its own process, so it runs through the job lifecycle
// without any executor (Start, End).
func Lease(t testing.TB, db *models.DB, owner *models.User, gpus int) *models.Job {
	t.Helper()
	j := &models.Job{Name: fmt.Sprintf("lease-%d", seq.Add(1)), OwnerID: owner.ID, GPUCount: gpus, Executor: models.ExecutorLease}
	if err := models.CreateJob(context.Background(), db.Pool, j, Now); err != nil {
		t.Fatalf("fixture lease: %v", err)
	}
	return j
}

// Start places lease job id on gpuIDs at now through the job lifecycle, as a
// scheduling pass would: it runs at once.
func Start(t testing.TB, db *models.DB, id int64, gpuIDs []int64, now time.Time) {
	t.Helper()
	err := db.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
		lc := &models.Lifecycle{}
		j, err := lc.Lock(ctx, tx, id)
		if err != nil {
			return err
		}
		return lc.Place(ctx, tx, j, models.Placement{GPUIDs: gpuIDs, Reason: "placed by the test"}, now)
	})
	if err != nil {
		t.Fatalf("fixture start of job %d: %v", id, err)
	}
}

// End asks the job lifecycle at now to end lease job id as kind says (a
// release completes it, a cancel cancels it); its GPUs are released.
func End(t testing.TB, db *models.DB, id int64, kind models.StopKind, now time.Time) {
	t.Helper()
	err := db.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
		lc := &models.Lifecycle{}
		j, err := lc.Lock(ctx, tx, id)
		if err != nil {
			return err
		}
		return lc.RequestStop(ctx, tx, j, models.StopRequest{Kind: kind, Reason: "ended by the test"}, now)
	})
	if err != nil {
		t.Fatalf("fixture end of job %d: %v", id, err)
	}
}
