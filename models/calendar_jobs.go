package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// RunningJobWindow is a running job as the calendar draws it: its GPUs
// from its start until its expected end.
type RunningJobWindow struct {
	JobID              int64     `bun:"job_id"`
	Name               string    `bun:"name"`
	OwnerID            int64     `bun:"owner_id"`
	OwnerEmail         string    `bun:"owner_email"`
	StartedAt          time.Time `bun:"started_at"`
	EstimatedDurationS *int64    `bun:"estimated_duration_s"`
	// TimeLimitS is its time limit: it ends by then at the latest.
	TimeLimitS *int64  `bun:"time_limit_s"`
	GPUIDs     []int64 `bun:"gpu_ids,array"`
}

// ExpectedEnd is when the job should end: start plus its estimate, else
// plus its time limit (it ends by then at the latest), the earlier of the
// two when it has both; ok is false for a job with neither.
func (w *RunningJobWindow) ExpectedEnd() (end time.Time, ok bool) {
	d := w.EstimatedDurationS
	if l := w.TimeLimitS; l != nil && (d == nil || *l < *d) {
		d = l
	}
	if d == nil {
		return time.Time{}, false
	}
	return w.StartedAt.Add(time.Duration(*d) * time.Second), true
}

// ListRunningJobWindows returns the jobs holding GPUs now, with their GPUs,
// in one query.
func ListRunningJobWindows(ctx context.Context, db bun.IDB) ([]RunningJobWindow, error) {
	out := []RunningJobWindow{}
	err := db.NewRaw(`
SELECT j.id AS job_id, j.name, j.owner_id, u.email AS owner_email,
    coalesce(j.started_at, min(a.created_at)) AS started_at, j.estimated_duration_s, j.time_limit_s,
    array_agg(a.gpu_id ORDER BY a.gpu_id) AS gpu_ids
FROM allocations a JOIN jobs j ON j.id = a.job_id JOIN users u ON u.id = j.owner_id
WHERE a.released_at IS NULL
GROUP BY j.id, u.email
ORDER BY j.id`).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: running job windows: %w", err)
	}
	return out, nil
}
