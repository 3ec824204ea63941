package models

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// JobPlace is one GPU a job holds now: its node's name and the GPU's index
// on that node.
type JobPlace struct {
	JobID    int64  `bun:"job_id"`
	NodeName string `bun:"node_name"`
	Index    int    `bun:"idx"`
}

// LivePlaces returns where every job holding GPUs holds them, by job, in
// node and index order. It reads the live allocations only, so it grows
// with the cluster's GPUs, not with the jobs ever run.
func LivePlaces(ctx context.Context, db bun.IDB) (map[int64][]JobPlace, error) {
	var rows []JobPlace
	err := db.NewSelect().TableExpr("allocations AS a").Join("JOIN gpus AS g ON g.id = a.gpu_id").Join("JOIN nodes AS n ON n.id = g.node_id").
		ColumnExpr("a.job_id, n.name AS node_name, g.idx").Where("a.released_at IS NULL").
		OrderExpr("a.job_id, n.name, g.idx").Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("models: where jobs run: %w", err)
	}
	out := make(map[int64][]JobPlace)
	for _, r := range rows {
		out[r.JobID] = append(out[r.JobID], r)
	}
	return out, nil
}
