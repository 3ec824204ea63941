package models

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// JobRuns lists the start commands of job's runs that reached their node
// (a run preempted or requeued leaves its output there), oldest first:
// run N of the job is JobRuns[N-1].
func JobRuns(ctx context.Context, db bun.IDB, jobID int64) ([]int64, error) {
	var ids []int64
	err := db.NewSelect().Model((*NodeCommand)(nil)).Column("id").
		Where("job_id = ? AND kind = ? AND delivered_at IS NOT NULL", jobID, CommandStart).OrderExpr("id").Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("models: runs of job %d: %w", jobID, err)
	}
	return ids, nil
}

// ReadRunLog is ReadLog for run (1 = the first) of the job's runs listed by
// JobRuns; ErrNotFound when it has no such run.
func ReadRunLog(ctx context.Context, db bun.IDB, jobID int64, run int, offset int64, limit int) (LogPage, error) {
	runs, err := JobRuns(ctx, db, jobID)
	if err != nil {
		return LogPage{}, err
	}
	if run < 1 || run > len(runs) {
		return LogPage{}, fmt.Errorf("models: run %d of job %d (it has %d): %w", run, jobID, len(runs), ErrNotFound)
	}
	return readCommandLog(ctx, db, jobID, runs[run-1], offset, limit)
}
