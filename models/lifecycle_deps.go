package models

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/uptrace/bun"
)

// waitsForSQL recomputes jobs.waits_for of the jobs in ? from their
// conditions not met yet.
const waitsForSQL = `
UPDATE jobs j SET updated_at = ?, waits_for = coalesce((
    SELECT string_agg(d.kind || ':' || CASE WHEN d.on_array THEN 'a' ELSE '' END || d.on_job_id, ','
        ORDER BY d.on_job_id, d.on_array, d.kind)
    FROM job_dependencies d WHERE d.job_id = j.id AND d.met_at IS NULL), '')
WHERE j.id IN (?) AND j.state = 'queued'`

// settlement is the end of a job or an array that settles conditions on
// it: the conditions on target (an array's when array is set) of the
// kinds only (all: none listed), by an end in state; what names it for
// people ("job 12", "task 3 of array 12").
type settlement struct {
	target int64
	array  bool
	state  string
	only   []string
	what   string
}

// settleDependents settles the conditions on job target, which has just
// ended in state, in tx.
func (lc *Lifecycle) settleDependents(ctx context.Context, tx *Tx, target int64, state string, now time.Time) error {
	return lc.settle(ctx, tx, settlement{target: target, state: state, what: "job " + strconv.FormatInt(target, 10)}, now)
}

// settle settles the conditions s names, in tx: those its end meets are
// marked met (their jobs wait for one condition fewer, and a pass is
// signalled); the queued jobs one of whose conditions it can never meet
// are canceled through the lifecycle (notified, and so on down their own
// dependents), saying why.
func (lc *Lifecycle) settle(ctx context.Context, tx *Tx, s settlement, now time.Time) error {
	var rows []JobDependency
	q := tx.NewSelect().Model(&rows).Where("on_job_id = ?", s.target).Where("on_array = ?", s.array).
		Where("met_at IS NULL").OrderExpr("job_id, kind")
	if len(s.only) > 0 {
		q = q.Where("kind IN (?)", bun.In(s.only))
	}
	if err := q.Scan(ctx); err != nil {
		return fmt.Errorf("models: dependents of %s: %w", s.what, err)
	}
	var metKinds []string
	var met, never []int64
	neverKind := map[int64]string{}
	for _, r := range rows {
		if dependencyMet(r.Kind, s.state) {
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
			Where("on_job_id = ?", s.target).Where("on_array = ?", s.array).Where("met_at IS NULL").
			Where("kind IN (?)", bun.In(metKinds)).Exec(ctx); err != nil {
			return fmt.Errorf("models: dependencies on %s met: %w", s.what, err)
		}
		if _, err := tx.ExecContext(ctx, waitsForSQL, now, bun.In(met)); err != nil {
			return fmt.Errorf("models: dependents of %s: %w", s.what, err)
		}
		if err := Signal(ctx, tx, ChannelJobs, "dependency:"+strconv.FormatInt(s.target, 10)); err != nil {
			return err
		}
	}
	byKind := map[string][]int64{}
	for _, id := range never {
		byKind[neverKind[id]] = append(byKind[neverKind[id]], id)
	}
	for _, kind := range slices.Sorted(maps.Keys(byKind)) {
		js, err := lc.LockMany(ctx, tx, byKind[kind])
		if err != nil {
			return err
		}
		stop := StopRequest{Kind: StopCancel, Reason: fmt.Sprintf("its dependency can never be met: %s ended %s (after%s)", s.what, s.state, kind)}
		rest, err := lc.CancelQueued(ctx, tx, js, stop, now) // a whole array's tasks at once
		if err != nil {
			return err
		}
		for _, j := range rest {
			if j.State != JobPreempted {
				continue // ended meanwhile, or (with its conditions met) ran
			}
			if err := lc.RequestStop(ctx, tx, j, stop, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// StaleDependencies returns the jobs that ended (or no longer exist: "")
// with conditions of queued jobs on them not settled yet, by id: what the
// dependency sweep settles (SettleDependencies). In normal operation there
// are none: a job's end settles them in its own transaction. (Conditions
// on whole arrays are settled by their tasks' ends.)
func StaleDependencies(ctx context.Context, db bun.IDB) (map[int64]string, error) {
	var rows []struct {
		ID    int64  `bun:"on_job_id"`
		State string `bun:"state"`
	}
	err := db.NewRaw(`SELECT DISTINCT d.on_job_id, coalesce(t.state, '') AS state
		FROM job_dependencies d JOIN jobs q ON q.id = d.job_id AND q.state = 'queued'
		LEFT JOIN jobs t ON t.id = d.on_job_id
		WHERE d.met_at IS NULL AND NOT d.on_array AND (t.id IS NULL OR t.state IN (?))
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
