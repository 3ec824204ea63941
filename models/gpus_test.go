package models_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func presentUUIDs(t *testing.T, db *models.DB, nodeID int64) []string {
	t.Helper()
	var out []string
	if err := db.Bun.NewSelect().Model((*models.GPU)(nil)).Column("uuid").Where("node_id = ? AND present", nodeID).OrderExpr("idx").Scan(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRegisterNodeReconcilesInventory(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	node, _ := testdb.Node(t, db, 0)
	inv := func(uuids ...string) []models.GPUInventory {
		out := []models.GPUInventory{}
		for i, u := range uuids {
			out = append(out, models.GPUInventory{Index: i, UUID: u, Model: "H100", MemoryMiB: 80000})
		}
		return out
	}
	steps := []struct {
		name string
		inv  []models.GPUInventory
		want []string
	}{
		{"first boot", inv("a", "b", "c"), []string{"a", "b", "c"}},
		{"b removed, d added", inv("a", "c", "d"), []string{"a", "c", "d"}},
		{"b back", inv("a", "b", "c", "d"), []string{"a", "b", "c", "d"}},
		{"no gpus at all", nil, nil},
	}
	for _, st := range steps {
		if err := models.RegisterNode(ctx, db.Bun, node.ID, "h", "v", st.inv, testdb.Now); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if d := cmp.Diff(st.want, presentUUIDs(t, db, node.ID)); d != "" {
			t.Fatalf("%s: present GPUs (-want +got)\n%s", st.name, d)
		}
	}
}

func TestHeartbeatOnlyTouchesOwnGPUs(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	mine, _ := testdb.Node(t, db, 1)
	theirs, _ := testdb.Node(t, db, 1)
	theirUUID := presentUUIDs(t, db, theirs.ID)[0]
	myUUID := presentUUIDs(t, db, mine.ID)[0]
	res, err := db.Heartbeat(ctx, mine.ID, []models.GPUTelemetry{
		{UUID: myUUID, UtilizationPct: 90, Health: "ok"},
		{UUID: theirUUID, UtilizationPct: 77, Health: "ok"},
	}, testdb.Now)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{theirUUID}, res.Unknown); d != "" {
		t.Fatalf("unknown (-want +got)\n%s", d)
	}
	var util int
	if err := db.Bun.NewSelect().Model((*models.GPU)(nil)).Column("utilization_pct").Where("uuid = ?", theirUUID).Scan(ctx, &util); err != nil {
		t.Fatal(err)
	}
	if util != 0 {
		t.Fatalf("another node's heartbeat changed this GPU's utilization to %d", util)
	}
}
