package models

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/uptrace/bun"
)

// Capacity is what the cluster could ever offer, for validating requests:
// every present GPU counts, whatever it is doing now.
type Capacity struct {
	TotalGPUs       int
	LargestNode     int              // most GPUs on one node
	Models          map[string]int64 // model → largest memory (MiB)
	NodeGPUsByModel map[string]int   // model → most GPUs of it on one node
}

// ClusterCapacity reads the cluster's capacity.
func ClusterCapacity(ctx context.Context, db bun.IDB) (Capacity, error) {
	var rows []struct {
		NodeID    int64  `bun:"node_id"`
		Model     string `bun:"model"`
		MemoryMiB int64  `bun:"memory_mib"`
	}
	if err := db.NewSelect().Model((*GPU)(nil)).Column("node_id", "model", "memory_mib").Where("present").Scan(ctx, &rows); err != nil {
		return Capacity{}, fmt.Errorf("models: cluster capacity: %w", err)
	}
	c := Capacity{Models: map[string]int64{}, NodeGPUsByModel: map[string]int{}}
	perNode := map[int64]int{}
	perNodeModel := map[string]int{}
	for _, r := range rows {
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

// MatchModels returns the cluster's models that a request for model
// matches (case-insensitive substring, as the scheduler matches), sorted.
func (c Capacity) MatchModels(model string) []string {
	var out []string
	for m := range c.Models {
		if model == "" || strings.Contains(strings.ToLower(m), strings.ToLower(model)) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}
