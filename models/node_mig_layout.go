package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// MIGKeepAhead is how soon a booking must start for its GPUs to be kept
// as they are: the agent does not re-split a GPU a booking takes within it.
const MIGKeepAhead = 30 * time.Minute

// SetNodeMIGLayout records the MIG layout an admin declares for node id
// (nil: none, the agent leaves MIG alone), already validated, with the
// audit entry; its agent learns it with its next heartbeat.
func SetNodeMIGLayout(ctx context.Context, db bun.IDB, id int64, layout *string, actor int64, now time.Time) error {
	if _, err := db.NewUpdate().Model((*Node)(nil)).Set("mig_layout = ?", layout).Set("updated_at = ?", now).
		Where("id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("models: set MIG layout of node %d: %w", id, err)
	}
	return Audit(ctx, db, &AuditEntry{ActorUserID: &actor, Action: "node.mig_layout", TargetType: "node",
		TargetID: fmt.Sprint(id), Details: map[string]any{"mig_layout": layout}})
}

// NodeMIGWanted is what a node's agent learns with each heartbeat: the
// declared layout (nil: none) and the GPU indices it must leave as they
// are because a booking holds them or starts on them within MIGKeepAhead.
type NodeMIGWanted struct {
	Layout *string
	Keep   []int
}

// NodeMIGLayoutWanted reads what node id's agent should apply at now.
func NodeMIGLayoutWanted(ctx context.Context, db bun.IDB, id int64, now time.Time) (NodeMIGWanted, error) {
	var out NodeMIGWanted
	if err := db.NewSelect().Model((*Node)(nil)).Column("mig_layout").Where("id = ?", id).Scan(ctx, &out.Layout); err != nil {
		return out, fmt.Errorf("models: MIG layout of node %d: %w", id, err)
	}
	if out.Layout == nil {
		return out, nil
	}
	err := db.NewRaw(`
SELECT DISTINCT g.idx FROM bookings b
JOIN gpus g ON g.node_id = ? AND (g.id = ANY(b.pinned_gpu_ids) OR g.id IN (SELECT gpu_id FROM booking_gpus WHERE booking_id = b.id))
WHERE b.canceled_at IS NULL AND b.consumed_at IS NULL AND b.expired_at IS NULL AND b.starts_at < ? AND b.ends_at > ?
ORDER BY g.idx`, id, now.Add(MIGKeepAhead), now).Scan(ctx, &out.Keep)
	if err != nil {
		return out, fmt.Errorf("models: booked GPUs of node %d: %w", id, err)
	}
	return out, nil
}

// SaveMIGLayoutReport keeps what node id's agent last reported of applying
// the declared layout, when it changed.
func SaveMIGLayoutReport(ctx context.Context, db bun.IDB, id int64, report string, now time.Time) error {
	if _, err := db.NewUpdate().Model((*Node)(nil)).Set("mig_layout_report = ?", report).Set("mig_layout_reported_at = ?", now).
		Where("id = ?", id).Where("mig_layout_report IS DISTINCT FROM ?", report).Exec(ctx); err != nil {
		return fmt.Errorf("models: MIG layout report of node %d: %w", id, err)
	}
	return nil
}

// NodeGPUModels returns the model of each present GPU of node id by index
// (a MIG device's is its GPU's), for checking a declared layout.
func NodeGPUModels(ctx context.Context, db bun.IDB, id int64) (map[int]string, error) {
	var rows []struct {
		Index int    `bun:"idx"`
		Model string `bun:"model"`
	}
	if err := db.NewSelect().TableExpr("gpus").ColumnExpr("DISTINCT idx, model").Where("node_id = ?", id).Where("present").
		Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: GPU models of node %d: %w", id, err)
	}
	out := make(map[int]string, len(rows))
	for _, r := range rows {
		out[r.Index] = r.Model
	}
	return out, nil
}
