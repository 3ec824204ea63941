package models

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Capacity is what the cluster could ever offer, for validating requests:
// every present GPU counts, whatever it is doing now. Whole GPUs are keyed
// by model, MIG devices by profile ("1g.10gb"), as the scheduler matches
// them (scheduler.IsMIGProfile).
type Capacity struct {
	TotalGPUs       int
	LargestNode     int              // most devices on one node
	Models          map[string]int64 // model or profile → largest memory (MiB)
	NodeGPUsByModel map[string]int   // model or profile → most devices of it on one node
	// SharedGPUs is the shared GPUs' models → the largest shared GPU's
	// memory (MiB, all its slots). Slots of shared GPUs are in no other
	// field but TotalGPUs: a whole-GPU request never matches them.
	SharedGPUs map[string]int64
}

// ClusterCapacity reads the cluster's capacity.
func ClusterCapacity(ctx context.Context, db bun.IDB) (Capacity, error) {
	var rows []struct {
		NodeID    int64  `bun:"node_id"`
		Model     string `bun:"model"`
		MemoryMiB int64  `bun:"memory_mib"`
		Profile   string `bun:"profile"`
		Kind      string `bun:"kind"`
		Slots     int64  `bun:"parent_slices"`
	}
	if err := db.NewSelect().Model((*GPU)(nil)).Column("node_id", "model", "memory_mib", "profile", "kind", "parent_slices").
		Where("present").Scan(ctx, &rows); err != nil {
		return Capacity{}, fmt.Errorf("models: cluster capacity: %w", err)
	}
	c := Capacity{Models: map[string]int64{}, NodeGPUsByModel: map[string]int{}, SharedGPUs: map[string]int64{}}
	perNode := map[int64]int{}
	perNodeModel := map[string]int{}
	for _, r := range rows {
		if r.Profile != "" {
			r.Model = strings.ToLower(r.Profile)
		}
		c.TotalGPUs++
		if r.Kind == GPUShare {
			c.SharedGPUs[r.Model] = max(c.SharedGPUs[r.Model], r.MemoryMiB*r.Slots)
			continue
		}
		perNode[r.NodeID]++
		key := fmt.Sprintf("%d\x00%s", r.NodeID, r.Model)
		perNodeModel[key]++
		c.LargestNode = max(c.LargestNode, perNode[r.NodeID])
		c.Models[r.Model] = max(c.Models[r.Model], r.MemoryMiB)
		c.NodeGPUsByModel[r.Model] = max(c.NodeGPUsByModel[r.Model], perNodeModel[key])
	}
	return c, nil
}

// MatchModels returns the cluster's models and MIG profiles that a
// request for model matches, sorted, as the scheduler matches: a MIG
// profile exactly that profile, anything else the whole GPUs' models of
// which it is a part (case-insensitive); "" lists all.
func (c Capacity) MatchModels(model string) []string {
	var out []string
	want := strings.ToLower(strings.TrimSpace(model))
	for m := range c.Models {
		switch {
		case model == "":
			out = append(out, m)
		case scheduler.IsMIGProfile(want):
			if m == want {
				out = append(out, m)
			}
		case !scheduler.IsMIGProfile(m) && strings.Contains(strings.ToLower(m), want):
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// SharedMemory is the memory (MiB) of the largest shared GPU whose model
// contains model (case-insensitive; "" any), and whether there is one.
func (c Capacity) SharedMemory(model string) (int64, bool) {
	want := strings.ToLower(strings.TrimSpace(model))
	most, ok := int64(0), false
	for m, mem := range c.SharedGPUs {
		if strings.Contains(strings.ToLower(m), want) {
			most, ok = max(most, mem), true
		}
	}
	return most, ok
}
