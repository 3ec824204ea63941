package models

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// StoreRayLogs stores what is new in the output Ray returned for run id
// (Ray answers the whole output each time): the bytes past those already
// stored, as one chunk, or nothing when there are none, so a sync writes
// only what the run printed since the last one. Chunks wholly older than
// the last LogCap bytes are dropped.
func StoreRayLogs(ctx context.Context, db bun.IDB, id int64, logs []byte) error {
	var end int64
	err := db.NewRaw(`SELECT coalesce((SELECT "offset" + length(data) FROM ray_run_logs WHERE run_id = ?
		ORDER BY "offset" DESC LIMIT 1), 0)`, id).Scan(ctx, &end)
	if err != nil {
		return fmt.Errorf("models: logs of ray run %d: %w", id, err)
	}
	total := int64(len(logs))
	if total <= end {
		return nil
	}
	from := max(end, total-LogCap)
	// Two syncs at once may both append at the same offset: the longer wins.
	_, err = db.ExecContext(ctx, `INSERT INTO ray_run_logs (run_id, "offset", data) VALUES (?, ?, ?)
		ON CONFLICT (run_id, "offset") DO UPDATE SET data = EXCLUDED.data
		WHERE length(EXCLUDED.data) > length(ray_run_logs.data)`, id, from, logs[from:])
	if err != nil {
		return fmt.Errorf("models: logs of ray run %d: %w", id, err)
	}
	if total <= LogCap {
		return nil
	}
	_, err = db.ExecContext(ctx, `DELETE FROM ray_run_logs WHERE run_id = ? AND "offset" + length(data) <= ?`, id, total-LogCap)
	if err != nil {
		return fmt.Errorf("models: trim logs of ray run %d: %w", id, err)
	}
	return nil
}

// ReadRayLog returns up to limit bytes of the output of job's newest Ray
// run from offset on.
func ReadRayLog(ctx context.Context, db bun.IDB, jobID, offset int64, limit int) (LogPage, error) {
	page := LogPage{Offset: offset, Next: offset}
	r, err := LatestRayRun(ctx, db, jobID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return page, nil
		}
		return page, err
	}
	page.CommandID = r.ID
	var chunks []LogChunk
	err = db.NewRaw(`SELECT "offset", data FROM ray_run_logs WHERE run_id = ? AND "offset" + length(data) > ?
		ORDER BY "offset"`, r.ID, offset).Scan(ctx, &chunks)
	if err != nil {
		return page, fmt.Errorf("models: read ray log of job %d: %w", jobID, err)
	}
	chunkPage(&page, chunks, limit)
	return page, nil
}
