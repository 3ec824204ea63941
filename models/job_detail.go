package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// JobEventRow is a job_events row with its actor's email.
type JobEventRow struct {
	JobEvent
	ActorEmail string `bun:"actor_email"`
}

// JobTimeline returns job's state moves, oldest first, with their actors.
func JobTimeline(ctx context.Context, db bun.IDB, jobID int64) ([]JobEventRow, error) {
	var out []JobEventRow
	err := db.NewSelect().Model((*JobEvent)(nil)).ColumnExpr("job_event.*").ColumnExpr("coalesce(u.email, '') AS actor_email").
		Join("LEFT JOIN users AS u ON u.id = job_event.actor_user_id").Where("job_event.job_id = ?", jobID).
		OrderExpr("job_event.id").Limit(500).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: timeline of job %d: %w", jobID, err)
	}
	return out, nil
}

// JobAllocationRow is a GPU a job holds or held, with its node.
type JobAllocationRow struct {
	GPUID      int64      `bun:"gpu_id"`
	NodeName   string     `bun:"node_name"`
	Index      int        `bun:"idx"`
	Model      string     `bun:"model"`
	Since      time.Time  `bun:"created_at"`
	ReleasedAt *time.Time `bun:"released_at"`
}

// JobAllocations returns the GPUs of job's allocations, newest first.
func JobAllocations(ctx context.Context, db bun.IDB, jobID int64) ([]JobAllocationRow, error) {
	var out []JobAllocationRow
	err := db.NewSelect().TableExpr("allocations AS a").Join("JOIN gpus AS g ON g.id = a.gpu_id").Join("JOIN nodes AS n ON n.id = g.node_id").
		ColumnExpr("a.gpu_id, n.name AS node_name, g.idx, g.model, a.created_at, a.released_at").
		Where("a.job_id = ?", jobID).OrderExpr("a.created_at DESC, n.name, g.idx").Limit(200).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: allocations of job %d: %w", jobID, err)
	}
	return out, nil
}

// LogTail returns at most the last n bytes of the output of job's newest
// run.
func LogTail(ctx context.Context, db bun.IDB, jobID int64, n int) (LogPage, error) {
	start, err := LatestCommand(ctx, db, jobID, CommandStart)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return LogPage{}, nil
		}
		return LogPage{}, err
	}
	var end int64
	err = db.NewSelect().Model((*LogChunk)(nil)).ColumnExpr(`coalesce(max("offset" + length(data)), 0)`).
		Where("command_id = ?", start.ID).Scan(ctx, &end)
	if err != nil {
		return LogPage{}, fmt.Errorf("models: log tail of job %d: %w", jobID, err)
	}
	return ReadLog(ctx, db, jobID, max(end-int64(n), 0), n)
}
