package models_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A GPU put in MIG mode is registered as its MIG devices, which share its
// index: the GPU itself is no longer present, and comes back whole when MIG
// is turned off. Each device keeps its profile, parent and fraction.
func TestRegisterNodeMIGDevices(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	node, _ := testdb.Node(t, db, 0)
	parent := "GPU-0"
	whole := []models.GPUInventory{
		{Index: 0, UUID: "GPU-0", Model: "H100", MemoryMiB: 81559},
		{Index: 1, UUID: "GPU-1", Model: "H100", MemoryMiB: 81559},
	}
	split := []models.GPUInventory{
		{Index: 0, UUID: "MIG-a", Model: "H100", MemoryMiB: 40448, Kind: models.GPUMIG, ParentUUID: &parent, Profile: "3g.40gb", Slices: 3, ParentSlices: 7},
		{Index: 0, UUID: "MIG-b", Model: "H100", MemoryMiB: 9984, Kind: models.GPUMIG, ParentUUID: &parent, Profile: "1g.10gb", Slices: 1, ParentSlices: 7},
		whole[1],
	}
	type row struct {
		UUID     string
		Kind     string
		Profile  string
		Fraction float64
	}
	present := func() []row {
		var gs []models.GPU
		if err := db.Bun.NewSelect().Model(&gs).Where("node_id = ? AND present", node.ID).OrderExpr("idx, uuid").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		var out []row
		for _, g := range gs {
			out = append(out, row{g.UUID, g.Kind, g.Profile, g.Fraction})
		}
		return out
	}
	steps := []struct {
		name string
		inv  []models.GPUInventory
		want []row
	}{
		{"whole", whole, []row{{"GPU-0", "whole", "", 1}, {"GPU-1", "whole", "", 1}}},
		{"GPU 0 split", split, []row{{"MIG-a", "mig", "3g.40gb", 3.0 / 7}, {"MIG-b", "mig", "1g.10gb", 1.0 / 7}, {"GPU-1", "whole", "", 1}}},
		{"MIG off again", whole, []row{{"GPU-0", "whole", "", 1}, {"GPU-1", "whole", "", 1}}},
	}
	for _, st := range steps {
		if err := models.RegisterNode(ctx, db.Bun, node.ID, "h", "v", st.inv, testdb.Now); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if d := cmp.Diff(st.want, present()); d != "" {
			t.Fatalf("%s: present devices (-want +got)\n%s", st.name, d)
		}
	}
}
