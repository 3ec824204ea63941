package models

import (
	"context"
	"fmt"
	"strconv"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// describeShare says what a booking of part of a shared GPU claims: "0.5
// of sim-1:2" when it names the GPU (or a pass pinned its slots), else
// "0.5 of a shared H100 GPU".
func describeShare(b *BookingRow, gpus []BookableGPU) string {
	ids := b.GPUIDs
	if len(ids) == 0 {
		ids = b.PinnedGPUIDs
	}
	for _, id := range ids {
		for i := range gpus {
			if gpus[i].ID == id {
				return shareText(b.GPUShare) + " of " + api.GPUName(gpus[i].NodeName, gpus[i].Index)
			}
		}
	}
	return shareText(b.GPUShare) + " of a shared " + gpuWord(1, b.GPUModel)
}

// shareText writes a fraction of a GPU as people read it: "0.5", "0.25".
func shareText(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }

// SharedGPUSlots returns the present slot devices of the shared GPU ref
// names (node:index), in ID order: what a booking of part of that GPU may
// take. ErrBookingGPUs, naming the GPU, when there is no such GPU or it
// is not shared.
func SharedGPUSlots(ctx context.Context, db bun.IDB, ref api.GPURef) ([]int64, error) {
	var rows []struct {
		ID   int64  `bun:"id"`
		Kind string `bun:"kind"`
	}
	q := db.NewSelect().TableExpr("gpus AS g").Join("JOIN nodes AS n ON n.id = g.node_id").ColumnExpr("g.id, g.kind").
		Where("g.present").OrderExpr("g.id")
	if ref.Node != "" {
		q = q.Where("lower(n.name) = lower(?)", ref.Node).Where("g.idx = ?", ref.Index)
	} else {
		q = q.Where("(g.node_id, g.idx) = (SELECT node_id, idx FROM gpus WHERE id = ?)", ref.ID)
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: shared GPU %s: %w", ref.String(), err)
	}
	var out []int64
	for _, r := range rows {
		if r.Kind == "share" {
			out = append(out, r.ID)
		}
	}
	switch {
	case len(rows) == 0:
		return nil, fmt.Errorf("%w: there is no GPU %s", ErrBookingGPUs, ref.String())
	case len(out) == 0:
		return nil, fmt.Errorf("%w: GPU %s is not shared; book it whole, or a share of a shared GPU", ErrBookingGPUs, ref.String())
	}
	return out, nil
}
