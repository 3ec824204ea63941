package models

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"
)

// cancelQueuedSQL cancels the queued jobs among ?, as RequestStop would one
// by one, and records each move; it returns the jobs canceled.
const cancelQueuedSQL = `
WITH c AS (
    UPDATE jobs SET state = 'canceled', ended_at = ?0, updated_at = ?0, queue_position = NULL, pending_code = '',
        pending_reason = '', estimated_start_at = NULL, stop_kind = 'cancel', stop_reason = ?1, stop_by = ?2,
        stop_requested_at = ?0
    WHERE id IN (?3) AND state = 'queued'
    RETURNING *
), e AS (
    INSERT INTO job_events (job_id, from_state, to_state, reason, actor_user_id, created_at)
    SELECT id, 'queued', 'canceled', ?1, ?2, ?0 FROM c
)
SELECT * FROM c ORDER BY id`

// CancelQueued cancels, as RequestStop with r (a cancel) would, every job of
// jobs that is queued, in tx, set-wise: one UPDATE and one INSERT of their
// moves for all, however many (an array of 10,000 tasks). What each end
// causes follows as for one: its owner is told (tasks: their array, once
// it has ended), the conditions on it are settled, its array counts it.
// The jobs not queued are left for RequestStop; it returns those.
func (lc *Lifecycle) CancelQueued(ctx context.Context, tx *Tx, jobs []*LockedJob, r StopRequest, now time.Time) ([]*LockedJob, error) {
	var ids []int64
	var rest []*LockedJob
	for _, j := range jobs {
		if err := j.in(tx); err != nil {
			return nil, err
		}
		if j.State == JobQueued {
			ids = append(ids, j.ID)
		} else {
			rest = append(rest, j)
		}
	}
	if len(ids) == 0 || r.Kind != StopCancel {
		return jobs, nil
	}
	var ended []Job
	if err := tx.NewRaw(cancelQueuedSQL, now, r.Reason, r.By, bun.In(ids)).Scan(ctx, &ended); err != nil && err != errNoRows {
		return nil, fmt.Errorf("models: cancel %d queued jobs: %w", len(ids), err)
	}
	if err := Signal(ctx, tx, ChannelJobs, "canceled:"+strconv.Itoa(len(ended))); err != nil {
		return nil, err
	}
	if err := lc.settleMany(ctx, tx, ended, now); err != nil {
		return nil, err
	}
	arrays := map[int64]*Job{}
	counts := map[int64]int{}
	for i := range ended {
		j := &ended[i]
		if j.ArrayJobID == nil {
			if err := emitJobMove(ctx, tx, j, r.Reason, now); err != nil {
				return nil, err
			}
			continue
		}
		arrays[*j.ArrayJobID] = j
		counts[*j.ArrayJobID]++
	}
	for id, last := range arrays {
		if err := lc.tasksEnded(ctx, tx, id, counts[id], counts[id], last, now); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// settleMany settles the conditions on the jobs that have just ended, for
// those that have any.
func (lc *Lifecycle) settleMany(ctx context.Context, tx *Tx, ended []Job, now time.Time) error {
	if len(ended) == 0 {
		return nil
	}
	state := map[int64]string{}
	ids := make([]int64, len(ended))
	for i := range ended {
		ids[i], state[ended[i].ID] = ended[i].ID, ended[i].State
	}
	var targets []int64
	if err := tx.NewSelect().Table("job_dependencies").ColumnExpr("DISTINCT on_job_id").Where("on_job_id IN (?)", bun.In(ids)).
		Where("NOT on_array").Where("met_at IS NULL").OrderExpr("on_job_id").Scan(ctx, &targets); err != nil && err != errNoRows {
		return fmt.Errorf("models: dependents of %d jobs: %w", len(ids), err)
	}
	for _, t := range targets {
		if err := lc.settleDependents(ctx, tx, t, state[t], now); err != nil {
			return err
		}
	}
	return nil
}
