package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// IdleUtilizationPct is the utilization at or below which an allocated GPU
// counts as idle.
const IdleUtilizationPct = 5

// MarkIdle updates idle_since of node's GPUs after a heartbeat: an
// allocated GPU at or below IdleUtilizationPct keeps (or starts) its idle
// stretch; any other GPU has none, nor has a MIG device (it has no
// utilization of its own).
func MarkIdle(ctx context.Context, db bun.IDB, nodeID int64, now time.Time) error {
	_, err := db.ExecContext(ctx, `
UPDATE gpus g SET idle_since = CASE
    WHEN g.utilization_pct <= ? AND g.kind = 'whole' AND EXISTS (SELECT 1 FROM allocations a WHERE a.gpu_id = g.id AND a.released_at IS NULL)
    THEN coalesce(g.idle_since, ?) END
WHERE g.node_id = ? AND g.present AND g.idle_since IS DISTINCT FROM CASE
    WHEN g.utilization_pct <= ? AND g.kind = 'whole' AND EXISTS (SELECT 1 FROM allocations a WHERE a.gpu_id = g.id AND a.released_at IS NULL)
    THEN coalesce(g.idle_since, ?) END`, IdleUtilizationPct, now, nodeID, IdleUtilizationPct, now)
	if err != nil {
		return fmt.Errorf("models: idle GPUs of node %d: %w", nodeID, err)
	}
	return nil
}

// IdleGPU is an allocated GPU that has been idle for a while, with who
// holds it.
type IdleGPU struct {
	GPUID     int64     `bun:"gpu_id" json:"gpu_id"`
	Node      string    `bun:"node" json:"node"`
	Index     int       `bun:"idx" json:"index"`
	JobID     int64     `bun:"job_id" json:"job_id"`
	Owner     string    `bun:"owner" json:"owner"`
	IdleSince time.Time `bun:"idle_since" json:"idle_since"`
}

// IdleGPUs returns allocated GPUs idle since before now-window, longest
// idle first.
func IdleGPUs(ctx context.Context, db bun.IDB, now time.Time, window time.Duration) ([]IdleGPU, error) {
	out := []IdleGPU{}
	err := db.NewRaw(`
SELECT g.id AS gpu_id, n.name AS node, g.idx, a.job_id, u.email AS owner, g.idle_since
FROM gpus g JOIN nodes n ON n.id = g.node_id
JOIN allocations a ON a.gpu_id = g.id AND a.released_at IS NULL
JOIN users u ON u.id = a.user_id
WHERE g.idle_since IS NOT NULL AND g.idle_since <= ?
ORDER BY g.idle_since, n.name, g.idx`, now.Add(-window)).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: idle GPUs: %w", err)
	}
	return out, nil
}
