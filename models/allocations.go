package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ErrGPUTaken is returned when a GPU already has a live allocation: the
// partial unique index allocations_one_live_per_gpu refused the second one.
var ErrGPUTaken = errors.New("GPU already allocated")

// Allocation binds one GPU to one job until released.
type Allocation struct {
	bun.BaseModel `bun:"table:allocations,alias:alloc"`

	ID            int64      `bun:"id,pk,autoincrement" json:"id"`
	JobID         int64      `bun:"job_id,notnull" json:"job_id"`
	GPUID         int64      `bun:"gpu_id,notnull" json:"gpu_id"`
	UserID        int64      `bun:"user_id,notnull" json:"user_id"`
	CreatedAt     time.Time  `bun:"created_at,notnull" json:"created_at"`
	ReleasedAt    *time.Time `bun:"released_at" json:"released_at,omitempty"`
	ReleaseReason string     `bun:"release_reason,notnull" json:"release_reason,omitempty"`
	// EndCause is why it ended, as data (Cause*).
	EndCause string `bun:"end_cause,notnull" json:"end_cause,omitempty"`
}

// allocate gives gpuIDs to a job, all or none: if any GPU is already held
// the whole insert fails with ErrGPUTaken. Only the lifecycle allocates.
func allocate(ctx context.Context, db bun.IDB, jobID, userID int64, gpuIDs []int64, now time.Time) ([]Allocation, error) {
	if len(gpuIDs) == 0 {
		return nil, fmt.Errorf("models: allocate for job %d: no GPUs given", jobID)
	}
	rows := make([]Allocation, len(gpuIDs))
	for i, g := range gpuIDs {
		rows[i] = Allocation{JobID: jobID, GPUID: g, UserID: userID, CreatedAt: now}
	}
	if _, err := db.NewInsert().Model(&rows).Returning("*").Exec(ctx); err != nil {
		if isUniqueViolation(err, "allocations_one_live_per_gpu") {
			return nil, fmt.Errorf("models: allocate %v for job %d: %w", gpuIDs, jobID, ErrGPUTaken)
		}
		return nil, fmt.Errorf("models: allocate %v for job %d: %w", gpuIDs, jobID, err)
	}
	if err := Signal(ctx, db, ChannelGPUs, fmt.Sprintf("alloc:%d", jobID)); err != nil {
		return nil, err
	}
	return rows, nil
}

// LiveAllocations returns every allocation not yet released.
func LiveAllocations(ctx context.Context, db bun.IDB) ([]Allocation, error) {
	var out []Allocation
	if err := db.NewSelect().Model(&out).Where("released_at IS NULL").OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: live allocations: %w", err)
	}
	return out, nil
}

// JobGPU is a GPU a job holds, with its node's name.
type JobGPU struct {
	bun.BaseModel `bun:"table:gpus,alias:gpu"`
	GPU
	NodeName string `bun:"node_name"`
}

// JobGPUs returns the GPUs a job holds now, by node and index.
func JobGPUs(ctx context.Context, db bun.IDB, jobID int64) ([]JobGPU, error) {
	var out []JobGPU
	err := db.NewSelect().Model((*GPU)(nil)).ColumnExpr("gpu.*, n.name AS node_name").
		Join("JOIN nodes AS n ON n.id = gpu.node_id").
		Join("JOIN allocations AS a ON a.gpu_id = gpu.id AND a.released_at IS NULL").
		Where("a.job_id = ?", jobID).OrderExpr("n.name, gpu.idx, gpu.id").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: gpus of job %d: %w", jobID, err)
	}
	return out, nil
}
