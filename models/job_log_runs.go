package models

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// JobRuns lists the start commands of job's runs that reached their node
// (a run preempted or requeued leaves its output there), oldest first:
// run N of the job is JobRuns[N-1]. A multi-node run is listed by its
// first part's start command.
func JobRuns(ctx context.Context, db bun.IDB, jobID int64) ([]int64, error) {
	var ids []int64
	err := db.NewSelect().Model((*NodeCommand)(nil)).Column("id").
		Where("job_id = ? AND kind = ? AND delivered_at IS NOT NULL", jobID, CommandStart).Where(partRank+" = 0").OrderExpr("id").Scan(ctx, &ids)
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

// ReadPartLog is ReadRunLog (run 0: the newest) for one part of a
// multi-node run, by its node rank (0: the first part, as ReadRunLog),
// with how many parts the run has (1 on one node); ErrNotFound when the
// run has no such part, or none started yet.
func ReadPartLog(ctx context.Context, db bun.IDB, jobID int64, run, part int, offset int64, limit int) (LogPage, int, error) {
	runs, err := JobRuns(ctx, db, jobID)
	if err != nil {
		return LogPage{}, 0, err
	}
	if run == 0 {
		run = len(runs)
	}
	if run < 1 || run > len(runs) {
		return LogPage{}, 0, fmt.Errorf("models: run %d of job %d (it has %d): %w", run, jobID, len(runs), ErrNotFound)
	}
	parts, err := RunParts(ctx, db, jobID, runs[run-1])
	if err != nil || len(parts) == 0 {
		return LogPage{}, 0, err
	}
	n := 1
	if p := parts[0].JobPart(); p != nil {
		n = len(p.Nodes)
	}
	if part < 0 || part >= len(parts) {
		return LogPage{}, n, fmt.Errorf("models: part %d of run %d of job %d (%d of %d started): %w", part, run, jobID, len(parts), n, ErrNotFound)
	}
	page, err := readCommandLog(ctx, db, jobID, parts[part].ID, offset, limit)
	return page, n, err
}
