package models

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// migSlicesAt describes the present MIG devices of the GPU r names by
// node:index, by profile ("7 × 1g.10gb", "2 × 3g.40gb + 1 × 1g.10gb");
// "" when that GPU is not in MIG mode.
func migSlicesAt(ctx context.Context, db bun.IDB, r api.GPURef) (string, error) {
	var rows []struct {
		Profile string
		N       int
	}
	err := db.NewSelect().TableExpr("gpus AS g").Join("JOIN nodes AS n ON n.id = g.node_id").
		ColumnExpr("g.profile, count(*) AS n").Where("g.present").Where("g.kind = 'mig'").
		Where("lower(n.name) = ?", strings.ToLower(r.Node)).Where("g.idx = ?", r.Index).
		GroupExpr("g.profile").OrderExpr("count(*) DESC, g.profile").Scan(ctx, &rows)
	if err != nil {
		return "", fmt.Errorf("models: MIG slices of %s: %w", r, err)
	}
	parts := make([]string, len(rows))
	for i, x := range rows {
		parts[i] = fmt.Sprintf("%d × %s", x.N, x.Profile)
	}
	return strings.Join(parts, " + "), nil
}

// migProfileOf is the first profile of a description by migSlicesAt:
// "1g.10gb" of "7 × 1g.10gb".
func migProfileOf(slices string) string {
	first, _, _ := strings.Cut(slices, " + ")
	_, p, _ := strings.Cut(first, " × ")
	return p
}
