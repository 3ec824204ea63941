package models

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// waitsForSQL recomputes jobs.waits_for of the jobs in ? from their
// conditions not met yet.
const waitsForSQL = `
UPDATE jobs j SET updated_at = ?, waits_for = coalesce((
    SELECT string_agg(d.kind || ':' || d.on_job_id, ',' ORDER BY d.on_job_id, d.kind)
    FROM job_dependencies d WHERE d.job_id = j.id AND d.met_at IS NULL), '')
WHERE j.id IN (?) AND j.state = 'queued'`

// settleDependents settles the conditions on job target, which has just
// ended in state, in tx: those it meets are marked met (their jobs wait for
// one condition fewer, and a pass is signalled); the queued jobs one of
// whose conditions it can never meet are canceled through the lifecycle
// (notified, and so on down their own dependents), saying why.
func (lc *Lifecycle) settleDependents(ctx context.Context, tx *Tx, target int64, state string, now time.Time) error {
	var rows []JobDependency
	if err := tx.NewSelect().Model(&rows).Where("on_job_id = ?", target).Where("met_at IS NULL").
		OrderExpr("job_id, kind").Scan(ctx); err != nil {
		return fmt.Errorf("models: dependents of job %d: %w", target, err)
	}
	if len(rows) == 0 {
		return nil
	}
	var metKinds []string
	var met, never []int64
	neverKind := map[int64]string{}
	for _, r := range rows {
		if dependencyMet(r.Kind, state) {
			metKinds = append(metKinds, r.Kind)
			met = append(met, r.JobID)
			continue
		}
		if _, seen := neverKind[r.JobID]; !seen {
			never = append(never, r.JobID)
			neverKind[r.JobID] = r.Kind
		}
	}
	if len(met) > 0 {
		if _, err := tx.NewUpdate().Model((*JobDependency)(nil)).Set("met_at = ?", now).
			Where("on_job_id = ?", target).Where("met_at IS NULL").Where("kind IN (?)", bun.In(slices.Compact(slices.Sorted(slices.Values(metKinds))))).
			Exec(ctx); err != nil {
			return fmt.Errorf("models: dependencies on job %d met: %w", target, err)
		}
		if _, err := tx.ExecContext(ctx, waitsForSQL, now, bun.In(slices.Compact(met))); err != nil {
			return fmt.Errorf("models: dependents of job %d: %w", target, err)
		}
		if err := Signal(ctx, tx, ChannelJobs, "dependency:"+strconv.FormatInt(target, 10)); err != nil {
			return err
		}
	}
	for _, id := range never {
		j, err := lc.Lock(ctx, tx, id)
		if err != nil {
			return err
		}
		if j.State != JobQueued && j.State != JobPreempted {
			continue // ended meanwhile, or (with its conditions met) ran
		}
		d := scheduler.Dependency{Kind: neverKind[id], JobID: target}
		reason := fmt.Sprintf("its dependency can never be met: job %d ended %s (after%s)", target, state, d.Kind)
		if err := lc.RequestStop(ctx, tx, j, StopRequest{Kind: StopCancel, Reason: reason}, now); err != nil {
			return err
		}
	}
	return nil
}

// StaleDependencies returns the jobs that ended (or no longer exist: "")
// with conditions of queued jobs on them not settled yet, by id: what the
// dependency sweep settles (SettleDependencies). In normal operation there
// are none: a job's end settles them in its own transaction.
func StaleDependencies(ctx context.Context, db bun.IDB) (map[int64]string, error) {
	var rows []struct {
		ID    int64  `bun:"on_job_id"`
		State string `bun:"state"`
	}
	err := db.NewRaw(`SELECT DISTINCT d.on_job_id, coalesce(t.state, '') AS state
		FROM job_dependencies d JOIN jobs q ON q.id = d.job_id AND q.state = 'queued'
		LEFT JOIN jobs t ON t.id = d.on_job_id
		WHERE d.met_at IS NULL AND (t.id IS NULL OR t.state IN (?))
		ORDER BY d.on_job_id LIMIT 1000`, bun.In(terminalStates())).Scan(ctx, &rows)
	if err != nil && err != errNoRows {
		return nil, fmt.Errorf("models: stale dependencies: %w", err)
	}
	out := make(map[int64]string, len(rows))
	for _, r := range rows {
		out[r.ID] = r.State
	}
	return out, nil
}

// stateGone stands for the state of a job that no longer exists: only
// afterany (and singleton) is met by it.
const stateGone = "gone"

// SettleDependencies settles, in tx, the conditions on job target, which
// ended in state ("": it no longer exists, and only afterany is met).
func (lc *Lifecycle) SettleDependencies(ctx context.Context, tx *Tx, target int64, state string, now time.Time) error {
	if state == "" {
		state = stateGone
	}
	return lc.settleDependents(ctx, tx, target, state, now)
}
