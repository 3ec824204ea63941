package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// DependencyError is a condition a submission cannot wait for: the job it
// names does not exist, or it can never be met. Reason is for the person.
type DependencyError struct{ Reason string }

func (e *DependencyError) Error() string { return "dependency: " + e.Reason }

// Condition is a condition a submission asks for: the end of job JobID
// (Kind DependOK, DependAny, DependNotOK), of task Task of array JobID, or
// (Kind DependSingleton, no JobID) of the owner's earlier jobs of the same
// name. A JobID that is an array's id (and no Task) means the whole
// array, as in Slurm.
type Condition struct {
	Kind  string
	JobID int64
	Task  *int
}

// PrepareDependencies checks the conditions asked of a new job of owner,
// named name, in tx, and returns them as they are to be recorded
// (AddDependencies), in (job, array, kind) order: a task is named by its
// job; a condition on something that already ended is met at once (MetAt
// now), or refused (*DependencyError) when it never can be; singleton
// becomes a condition on each of the owner's live jobs of that name. What
// is waited for is locked (FOR SHARE: the jobs, the arrays' rows) until tx
// ends, so that none of it ends unseen before the conditions are stored.
func PrepareDependencies(ctx context.Context, tx *Tx, owner int64, name string, asked []Condition, now time.Time) ([]JobDependency, error) {
	var out []JobDependency
	var ids []int64
	for _, d := range asked {
		if d.Kind == scheduler.DependSingleton {
			same, err := singletonJobs(ctx, tx, owner, name)
			if err != nil {
				return nil, err
			}
			for _, id := range same {
				out = append(out, JobDependency{Kind: scheduler.DependSingleton, OnJobID: id})
			}
			continue
		}
		ids = append(ids, d.JobID)
	}
	states, arrays, err := lockWaitedFor(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	for _, d := range asked {
		if d.Kind == scheduler.DependSingleton {
			continue
		}
		c := JobDependency{Kind: d.Kind, OnJobID: d.JobID}
		st, ok := states[d.JobID]
		what := fmt.Sprintf("job %d", d.JobID)
		a, isArray := arrays[d.JobID]
		switch {
		case d.Task != nil && !isArray:
			return nil, &DependencyError{Reason: fmt.Sprintf("%d is not an array: %d_%d names no task", d.JobID, d.JobID, *d.Task)}
		case d.Task != nil:
			t, err := lockTask(ctx, tx, d.JobID, *d.Task)
			if err != nil {
				return nil, err
			}
			c.OnJobID, st, ok, what = t.ID, t.State, true, fmt.Sprintf("task %d of array %d", *d.Task, d.JobID)
		case isArray:
			c.OnArray, what = true, fmt.Sprintf("array %d", d.JobID)
			st = JobQueued // not ended: its tasks settle the condition
			if a.Failed > 0 && d.Kind == scheduler.DependOK {
				st = JobFailed
			} else if a.Ended == a.TaskCount {
				st = JobCompleted
				if a.Failed > 0 {
					st = JobFailed
				}
			}
		}
		switch {
		case !ok:
			return nil, &DependencyError{Reason: fmt.Sprintf("job %d does not exist", d.JobID)}
		case !IsTerminal(st):
		case dependencyMet(d.Kind, st):
			c.MetAt = &now
		default:
			return nil, &DependencyError{Reason: fmt.Sprintf("%s already ended %s, so after%s can never be met", what, st, d.Kind)}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b JobDependency) int {
		return cmp.Or(cmp.Compare(a.OnJobID, b.OnJobID), compareBool(a.OnArray, b.OnArray), cmp.Compare(a.Kind, b.Kind))
	})
	return slices.CompactFunc(out, func(a, b JobDependency) bool {
		return a.OnJobID == b.OnJobID && a.OnArray == b.OnArray && a.Kind == b.Kind
	}), nil
}

// lockWaitedFor locks the jobs ids (FOR SHARE) and the arrays among them,
// and returns the jobs' states and the arrays, by id.
func lockWaitedFor(ctx context.Context, tx *Tx, ids []int64) (map[int64]string, map[int64]*JobArray, error) {
	states, arrays := map[int64]string{}, map[int64]*JobArray{}
	if len(ids) == 0 {
		return states, arrays, nil
	}
	var rows []struct {
		ID    int64  `bun:"id"`
		State string `bun:"state"`
	}
	if err := tx.NewSelect().Table("jobs").Column("id", "state").Where("id IN (?)", bun.In(ids)).
		OrderExpr("id").For("SHARE").Scan(ctx, &rows); err != nil {
		return nil, nil, fmt.Errorf("models: jobs waited for: %w", err)
	}
	for _, r := range rows {
		states[r.ID] = r.State
	}
	var as []JobArray
	if err := tx.NewSelect().Model(&as).Where("id IN (?)", bun.In(ids)).OrderExpr("id").For("SHARE").Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("models: arrays waited for: %w", err)
	}
	for i := range as {
		arrays[as[i].ID] = &as[i]
	}
	return states, arrays, nil
}

// lockTask locks task task of array id (FOR SHARE) and returns its job.
func lockTask(ctx context.Context, tx *Tx, id int64, task int) (*Job, error) {
	j := new(Job)
	err := tx.NewSelect().Model(j).Column("id", "state").Where("array_job_id = ? AND array_task_id = ?", id, task).
		For("SHARE").Scan(ctx)
	if err == errNoRows {
		return nil, &DependencyError{Reason: fmt.Sprintf("array %d has no task %d", id, task)}
	}
	if err != nil {
		return nil, fmt.Errorf("models: task %d of array %d: %w", task, id, err)
	}
	return j, nil
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Waiting returns the conditions of conds not met yet, as the scheduler
// reads them.
func Waiting(conds []JobDependency) []scheduler.Dependency {
	var out []scheduler.Dependency
	for _, c := range conds {
		if c.MetAt == nil {
			out = append(out, scheduler.Dependency{Kind: c.Kind, JobID: c.OnJobID, Array: c.OnArray})
		}
	}
	return out
}

// singletonJobs returns owner's live jobs named name, locked (FOR SHARE),
// under a lock on (owner, name) held until tx ends, so that two singletons
// submitted together see each other.
func singletonJobs(ctx context.Context, tx *Tx, owner int64, name string) ([]int64, error) {
	if name == "" {
		return nil, &DependencyError{Reason: "singleton waits for your earlier jobs of the same name: give the job a name"}
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?, hashtext(?))`, int32(owner), name); err != nil {
		return nil, fmt.Errorf("models: singleton lock: %w", err)
	}
	var ids []int64
	err := tx.NewSelect().Table("jobs").Column("id").Where("owner_id = ?", owner).Where("name = ?", name).
		Where("state NOT IN (?)", bun.In(terminalStates())).OrderExpr("id").For("SHARE").Scan(ctx, &ids)
	if err != nil && err != errNoRows {
		return nil, fmt.Errorf("models: singleton jobs: %w", err)
	}
	return ids, nil
}

// dependencyMet reports whether a condition of kind is met by a job that
// ended in state; if not, it never will be.
func dependencyMet(kind, state string) bool {
	switch kind {
	case scheduler.DependOK:
		return state == JobCompleted
	case scheduler.DependNotOK:
		return state != JobCompleted && state != stateGone
	}
	return true // any, singleton
}

// AddDependencies records the conditions conds (PrepareDependencies's)
// of each of the new jobs ids, in one statement.
func AddDependencies(ctx context.Context, tx *Tx, ids []int64, conds []JobDependency) error {
	return addDependencies(ctx, tx, `SELECT unnest($1::bigint[])`, ids, conds)
}

// AddArrayDependencies records the conditions conds of every task of the
// new array id, in one statement.
func AddArrayDependencies(ctx context.Context, tx *Tx, id int64, conds []JobDependency) error {
	return addDependencies(ctx, tx, `SELECT id FROM jobs WHERE array_job_id = $1`, id, conds)
}

// addDependencies inserts conds for each job that jobs (a query of $1)
// selects.
func addDependencies(ctx context.Context, tx *Tx, jobs string, arg any, conds []JobDependency) error {
	if len(conds) == 0 {
		return nil
	}
	kinds, ons, arrays, mets := make([]string, len(conds)), make([]int64, len(conds)), make([]bool, len(conds)), make([]*time.Time, len(conds))
	for i, c := range conds {
		kinds[i], ons[i], arrays[i], mets[i] = c.Kind, c.OnJobID, c.OnArray, c.MetAt
	}
	if _, err := tx.PGX().Exec(ctx, `INSERT INTO job_dependencies (job_id, kind, on_job_id, on_array, met_at)
		SELECT j.id, d.kind, d.target, d.on_array, d.met FROM (`+jobs+`) AS j(id)
		CROSS JOIN unnest($2::text[], $3::bigint[], $4::bool[], $5::timestamptz[]) AS d(kind, target, on_array, met)`,
		arg, kinds, ons, arrays, mets); err != nil {
		return fmt.Errorf("models: record dependencies: %w", err)
	}
	return nil
}
