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
}

// ClusterCapacity reads the cluster's capacity.
func ClusterCapacity(ctx context.Context, db bun.IDB) (Capacity, error) {
	var rows []struct {
		NodeID    int64  `bun:"node_id"`
		Model     string `bun:"model"`
		MemoryMiB int64  `bun:"memory_mib"`
		Profile   string `bun:"profile"`
	}
	if err := db.NewSelect().Model((*GPU)(nil)).Column("node_id", "model", "memory_mib", "profile").Where("present").Scan(ctx, &rows); err != nil {
		return Capacity{}, fmt.Errorf("models: cluster capacity: %w", err)
	}
	c := Capacity{Models: map[string]int64{}, NodeGPUsByModel: map[string]int{}}
	perNode := map[int64]int{}
	perNodeModel := map[string]int{}
	for _, r := range rows {
		if r.Profile != "" {
			r.Model = strings.ToLower(r.Profile)
		}
		c.TotalGPUs++
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
