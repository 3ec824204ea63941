package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// DependencyError is a condition a submission cannot wait for: the job it
// names does not exist, or it can never be met. Reason is for the person.
type DependencyError struct{ Reason string }

func (e *DependencyError) Error() string { return "dependency: " + e.Reason }

// PrepareDependencies checks the conditions deps of a new job of owner,
// named name, in tx, and returns them as they are to be recorded
// (AddDependencies), in (job, kind) order: a condition on a job that
// already ended is met at once (MetAt now), or refused
// (*DependencyError) when it never can be; singleton becomes a condition
// on each of the owner's live jobs of that name. The jobs waited for are
// locked (FOR SHARE) until tx ends, so that none of them ends unseen before
// the new job's conditions are stored.
func PrepareDependencies(ctx context.Context, tx *Tx, owner int64, name string, deps []scheduler.Dependency, now time.Time) ([]JobDependency, error) {
	var out []JobDependency
	var ids []int64
	for _, d := range deps {
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
	states := map[int64]string{}
	if len(ids) > 0 {
		var rows []struct {
			ID    int64  `bun:"id"`
			State string `bun:"state"`
		}
		if err := tx.NewSelect().Table("jobs").Column("id", "state").Where("id IN (?)", bun.In(ids)).
			OrderExpr("id").For("SHARE").Scan(ctx, &rows); err != nil {
			return nil, fmt.Errorf("models: jobs waited for: %w", err)
		}
		for _, r := range rows {
			states[r.ID] = r.State
		}
	}
	for _, d := range deps {
		if d.Kind == scheduler.DependSingleton {
			continue
		}
		st, ok := states[d.JobID]
		c := JobDependency{Kind: d.Kind, OnJobID: d.JobID}
		switch {
		case !ok:
			return nil, &DependencyError{Reason: fmt.Sprintf("job %d does not exist", d.JobID)}
		case !IsTerminal(st):
		case dependencyMet(d.Kind, st):
			c.MetAt = &now
		default:
			return nil, &DependencyError{Reason: fmt.Sprintf("job %d already ended %s, so after%s can never be met", d.JobID, st, d.Kind)}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b JobDependency) int {
		return cmp.Or(cmp.Compare(a.OnJobID, b.OnJobID), cmp.Compare(a.Kind, b.Kind))
	})
	return slices.CompactFunc(out, func(a, b JobDependency) bool { return a.OnJobID == b.OnJobID && a.Kind == b.Kind }), nil
}

// Waiting returns the conditions of conds not met yet, as the scheduler
// reads them.
func Waiting(conds []JobDependency) []scheduler.Dependency {
	var out []scheduler.Dependency
	for _, c := range conds {
		if c.MetAt == nil {
			out = append(out, scheduler.Dependency{Kind: c.Kind, JobID: c.OnJobID})
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
	if len(ids) == 0 || len(conds) == 0 {
		return nil
	}
	kinds, ons, mets := make([]string, len(conds)), make([]int64, len(conds)), make([]*time.Time, len(conds))
	for i, c := range conds {
		kinds[i], ons[i], mets[i] = c.Kind, c.OnJobID, c.MetAt
	}
	if _, err := tx.PGX().Exec(ctx, `INSERT INTO job_dependencies (job_id, kind, on_job_id, met_at)
		SELECT j, d.kind, d.target, d.met FROM unnest($1::bigint[]) AS j
		CROSS JOIN unnest($2::text[], $3::bigint[], $4::timestamptz[]) AS d(kind, target, met)`,
		ids, kinds, ons, mets); err != nil {
		return fmt.Errorf("models: record dependencies: %w", err)
	}
	return nil
}

// FormatWaits writes conditions as jobs.waits_for keeps them: "ok:12,any:14".
func FormatWaits(deps []scheduler.Dependency) string {
	parts := make([]string, len(deps))
	for i, d := range deps {
		parts[i] = d.Kind + ":" + strconv.FormatInt(d.JobID, 10)
	}
	return strings.Join(parts, ",")
}

// ParseWaits reads jobs.waits_for; what it cannot read it skips.
func ParseWaits(s string) []scheduler.Dependency {
	if s == "" {
		return nil
	}
	var out []scheduler.Dependency
	for _, p := range strings.Split(s, ",") {
		kind, id, _ := strings.Cut(p, ":")
		if n, err := strconv.ParseInt(id, 10, 64); err == nil {
			out = append(out, scheduler.Dependency{Kind: kind, JobID: n})
		}
	}
	return out
}

// JobDependency is one recorded condition of a job.
type JobDependency struct {
	bun.BaseModel `bun:"table:job_dependencies"`

	JobID   int64      `bun:"job_id,pk"`
	Kind    string     `bun:"kind,pk"`
	OnJobID int64      `bun:"on_job_id,pk"`
	MetAt   *time.Time `bun:"met_at"`
}

// DependenciesOf returns job id's conditions in (job, kind) order.
func DependenciesOf(ctx context.Context, db bun.IDB, id int64) ([]JobDependency, error) {
	var out []JobDependency
	if err := db.NewSelect().Model(&out).Where("job_id = ?", id).OrderExpr("on_job_id, kind").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: dependencies of job %d: %w", id, err)
	}
	return out, nil
}
