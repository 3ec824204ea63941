package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// GPUStatus is a GPU as the cluster views show it: telemetry plus who holds it.
type GPUStatus struct {
	bun.BaseModel `bun:"table:gpus,alias:gpu"`
	GPU
	JobID       *int64  `bun:"job_id" json:"job_id,omitempty"`
	JobName     *string `bun:"job_name" json:"job_name,omitempty"`
	HolderID    *int64  `bun:"holder_id" json:"holder_id,omitempty"`
	HolderEmail *string `bun:"holder_email" json:"holder_email,omitempty"`
	HolderName  *string `bun:"holder_name" json:"holder_name,omitempty"`
	// The holding job's start and estimate, for "until when" (calview).
	JobStartedAt          *time.Time `bun:"job_started_at" json:"-"`
	JobEstimatedDurationS *int64     `bun:"job_estimated_duration_s" json:"-"`
}

// NodeStatus is a node with its present GPUs, in index order.
type NodeStatus struct {
	Node
	GPUs []GPUStatus
}

// ClusterStatus reads every node and its present GPUs with their holders, in
// two queries whatever the cluster's size.
func ClusterStatus(ctx context.Context, db bun.IDB) ([]NodeStatus, error) {
	nodes, err := ListNodes(ctx, db)
	if err != nil {
		return nil, err
	}
	var gpus []GPUStatus
	err = db.NewSelect().Model(&gpus).
		ColumnExpr("gpu.*").
		ColumnExpr("a.job_id, j.name AS job_name, u.id AS holder_id, u.email AS holder_email, u.name AS holder_name").
		ColumnExpr("coalesce(j.started_at, a.created_at) AS job_started_at, j.estimated_duration_s AS job_estimated_duration_s").
		Join("LEFT JOIN allocations AS a ON a.gpu_id = gpu.id AND a.released_at IS NULL").
		Join("LEFT JOIN jobs AS j ON j.id = a.job_id").
		Join("LEFT JOIN users AS u ON u.id = a.user_id").
		Where("gpu.present").
		OrderExpr("gpu.node_id, gpu.idx, gpu.id").
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: cluster status: %w", err)
	}
	byNode := make(map[int64]int, len(nodes))
	out := make([]NodeStatus, len(nodes))
	for i, n := range nodes {
		out[i] = NodeStatus{Node: n}
		byNode[n.ID] = i
	}
	for _, g := range gpus {
		if i, ok := byNode[g.NodeID]; ok {
			out[i].GPUs = append(out[i].GPUs, g)
		}
	}
	return out, nil
}

// Available reports whether the scheduler may offer g now: present, healthy,
// not drained, on an up node that is not drained, and not held.
func (g *GPUStatus) Available(n *Node) bool {
	return g.Present && g.Health != HealthFailed && !g.Drained && !n.Drained && n.Status == NodeUp && g.JobID == nil
}

// Stale reports whether the GPU's telemetry is older than maxAge at now.
func (g *GPUStatus) Stale(now time.Time, maxAge time.Duration) bool {
	return g.TelemetryAt == nil || now.Sub(*g.TelemetryAt) > maxAge
}
