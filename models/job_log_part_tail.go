package models

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// PartLogTail is LogTail for one part, by node rank (0: the first part,
// as LogTail), of the job's newest run, with the names of that run's nodes
// in rank order when it has several parts (empty: it runs on one node;
// nil: the job has not run yet). A part that has not started yet gives an
// empty page (CommandID 0).
func PartLogTail(ctx context.Context, db bun.IDB, jobID int64, part, n int) (LogPage, []string, error) {
	start, err := LatestCommand(ctx, db, jobID, CommandStart)
	if errors.Is(err, ErrNotFound) {
		return LogPage{}, nil, nil
	}
	if err != nil {
		return LogPage{}, nil, err
	}
	parts, err := RunParts(ctx, db, jobID, start.ID)
	if err != nil {
		return LogPage{}, nil, err
	}
	nodes := []string{}
	if p := start.JobPart(); p != nil && len(p.Nodes) > 1 {
		nodes = p.Nodes
	}
	if part < 0 || part >= len(parts) {
		return LogPage{}, nodes, nil
	}
	id := parts[part].ID
	var end int64
	err = db.NewSelect().Model((*LogChunk)(nil)).ColumnExpr(`coalesce(max("offset" + length(data)), 0)`).
		Where("command_id = ?", id).Scan(ctx, &end)
	if err != nil {
		return LogPage{}, nodes, fmt.Errorf("models: log tail of part %d of job %d: %w", part, jobID, err)
	}
	page, err := readCommandLog(ctx, db, jobID, id, max(end-int64(n), 0), n)
	return page, nodes, err
}
