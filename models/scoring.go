package models

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// Where an observation came from.
const (
	ObservationAPI = "api" // POST /v1/observe
	ObservationJob = "job" // a job of ours that completed
)

// scoringApplyLock is the advisory lock one applier of observations holds,
// so observations are folded in one order on every replica.
const scoringApplyLock = 7_004_0001

// ScoringObservation is one measured run, pending until a River job folds
// it into the model (AppliedAt).
type ScoringObservation struct {
	bun.BaseModel `bun:"table:scoring_observations,alias:obs"`

	ID        int64      `bun:"id,pk,autoincrement"`
	JobType   string     `bun:"job_type,notnull"`
	GPUType   string     `bun:"gpu_type,notnull"`
	RuntimeS  float64    `bun:"runtime_s,notnull"`
	Colocated []string   `bun:"colocated_job_types,array,notnull"`
	JobID     *int64     `bun:"job_id"`
	Source    string     `bun:"source,notnull"`
	CreatedAt time.Time  `bun:"created_at,notnull"`
	AppliedAt *time.Time `bun:"applied_at"`
}

// scoringRuntime is a row of scoring_runtime_stats.
type scoringRuntime struct {
	bun.BaseModel `bun:"table:scoring_runtime_stats,alias:srs"`

	JobType   string    `bun:"job_type,pk"`
	GPUType   string    `bun:"gpu_type,pk"`
	N         int64     `bun:"n,notnull"`
	MeanLog   float64   `bun:"mean_log,notnull"`
	M2Log     float64   `bun:"m2_log,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

// scoringInterference is a row of scoring_interference_stats.
type scoringInterference struct {
	bun.BaseModel `bun:"table:scoring_interference_stats,alias:sis"`

	JobType   string    `bun:"job_type,pk"`
	Other     string    `bun:"other_job_type,pk"`
	N         int64     `bun:"n,notnull"`
	Mean      float64   `bun:"mean,notnull"`
	M2        float64   `bun:"m2,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

// RecordObservation stores a valid observation for the next apply. A job
// observes itself at most once: a second record for jobID is ignored
// (returns 0).
func RecordObservation(ctx context.Context, db bun.IDB, o scoring.Observation, source string, jobID *int64, now time.Time) (int64, error) {
	if err := o.Validate(); err != nil {
		return 0, fmt.Errorf("models: record observation: %w", err)
	}
	row := &ScoringObservation{JobType: o.JobType, GPUType: o.GPUType, RuntimeS: o.RuntimeS,
		Colocated: append([]string{}, o.Colocated...), JobID: jobID, Source: source, CreatedAt: now}
	res, err := db.NewInsert().Model(row).On("CONFLICT (job_id) DO NOTHING").Returning("id").Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: record observation of %s on %s: %w", o.JobType, o.GPUType, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, nil
	}
	return row.ID, nil
}

// ApplyScoringObservations folds up to limit pending observations into the
// model, oldest first, under a transaction-scoped advisory lock: one applier
// at a time in the whole cluster, so every key sees its observations in one
// order. Call it in a transaction. It returns how many it applied.
func ApplyScoringObservations(ctx context.Context, tx bun.IDB, c scoring.Config, limit int, now time.Time) (int, error) {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", scoringApplyLock); err != nil {
		return 0, fmt.Errorf("models: lock scoring applier: %w", err)
	}
	var obs []ScoringObservation
	if err := tx.NewSelect().Model(&obs).Where("applied_at IS NULL").OrderExpr("id").Limit(int64(limit)).Scan(ctx); err != nil {
		return 0, fmt.Errorf("models: pending observations: %w", err)
	}
	if len(obs) == 0 {
		return 0, nil
	}
	types := make([]string, 0, len(obs))
	ids := make([]int64, 0, len(obs))
	for _, o := range obs {
		types, ids = append(types, o.JobType), append(ids, o.ID)
	}
	st, err := loadScoringState(ctx, tx, scoring.Distinct(types), nil)
	if err != nil {
		return 0, err
	}
	rt, inter := map[scoring.Key]bool{}, map[scoring.Pair]bool{}
	for _, o := range obs {
		so := scoring.Observation{JobType: o.JobType, GPUType: o.GPUType, RuntimeS: o.RuntimeS, Colocated: o.Colocated}
		if so.Validate() != nil {
			continue // the table's checks make this unreachable; never let it reach the model
		}
		k := scoring.Key{JobType: o.JobType, GPUType: o.GPUType}
		l := c.Learn(st.Runtime[k], so)
		st.Runtime[k], rt[k] = l.Runtime, true
		if l.HasSlowdown {
			for _, b := range scoring.Distinct(o.Colocated) {
				p := scoring.Pair{JobType: o.JobType, Other: b}
				st.Interference[p], inter[p] = st.Interference[p].Add(l.Slowdown), true
			}
		}
	}
	for k := range rt {
		m := st.Runtime[k]
		row := &scoringRuntime{JobType: k.JobType, GPUType: k.GPUType, N: m.N, MeanLog: m.Mean, M2Log: m.M2, UpdatedAt: now}
		if _, err := tx.NewInsert().Model(row).On("CONFLICT (job_type, gpu_type) DO UPDATE").
			Set("n = EXCLUDED.n, mean_log = EXCLUDED.mean_log, m2_log = EXCLUDED.m2_log, updated_at = EXCLUDED.updated_at").Exec(ctx); err != nil {
			return 0, fmt.Errorf("models: save runtime of %s on %s: %w", k.JobType, k.GPUType, err)
		}
	}
	for p := range inter {
		m := st.Interference[p]
		row := &scoringInterference{JobType: p.JobType, Other: p.Other, N: m.N, Mean: m.Mean, M2: m.M2, UpdatedAt: now}
		if _, err := tx.NewInsert().Model(row).On("CONFLICT (job_type, other_job_type) DO UPDATE").
			Set("n = EXCLUDED.n, mean = EXCLUDED.mean, m2 = EXCLUDED.m2, updated_at = EXCLUDED.updated_at").Exec(ctx); err != nil {
			return 0, fmt.Errorf("models: save interference of %s beside %s: %w", p.JobType, p.Other, err)
		}
	}
	if _, err := tx.NewUpdate().Model((*ScoringObservation)(nil)).Set("applied_at = ?", now).
		Where("id IN (?)", bun.In(ids)).Exec(ctx); err != nil {
		return 0, fmt.Errorf("models: mark observations applied: %w", err)
	}
	return len(obs), nil
}

// LoadScoringState reads what the model has learned about jobType, and its
// interference with the co-located job types.
func LoadScoringState(ctx context.Context, db bun.IDB, jobType string, colocated []string) (scoring.State, error) {
	if colocated == nil {
		colocated = []string{} // none: no interference rows to read
	}
	return loadScoringState(ctx, db, []string{jobType}, colocated)
}

// loadScoringState reads the runtime rows of jobTypes and their
// interference rows, all of them when others is nil, else those beside others.
func loadScoringState(ctx context.Context, db bun.IDB, jobTypes, others []string) (scoring.State, error) {
	st := scoring.State{Runtime: map[scoring.Key]scoring.Moments{}, Interference: map[scoring.Pair]scoring.Moments{}}
	var rows []scoringRuntime
	if err := db.NewSelect().Model(&rows).Where("job_type IN (?)", bun.In(jobTypes)).Scan(ctx); err != nil {
		return st, fmt.Errorf("models: learned runtimes: %w", err)
	}
	for _, r := range rows {
		st.Runtime[scoring.Key{JobType: r.JobType, GPUType: r.GPUType}] = scoring.Moments{N: r.N, Mean: r.MeanLog, M2: r.M2Log}
	}
	if others != nil && len(others) == 0 {
		return st, nil
	}
	var irows []scoringInterference
	q := db.NewSelect().Model(&irows).Where("job_type IN (?)", bun.In(jobTypes))
	if others != nil {
		q = q.Where("other_job_type IN (?)", bun.In(others))
	}
	if err := q.Scan(ctx); err != nil {
		return st, fmt.Errorf("models: learned interference: %w", err)
	}
	for _, r := range irows {
		st.Interference[scoring.Pair{JobType: r.JobType, Other: r.Other}] = scoring.Moments{N: r.N, Mean: r.Mean, M2: r.M2}
	}
	return st, nil
}

// ScoringAvgUncertainty is the average uncertainty of the learned (job type,
// GPU type) pairs: the posterior standard deviation of ln(runtime)'s mean,
// roughly the relative error of the runtime estimate (0.1 ≈ ±10%); 0 when
// nothing was learned yet.
func ScoringAvgUncertainty(ctx context.Context, db bun.IDB, c scoring.Config) (float64, int, error) {
	var rows []scoringRuntime
	if err := db.NewSelect().Model(&rows).Scan(ctx); err != nil {
		return 0, 0, fmt.Errorf("models: learned runtimes: %w", err)
	}
	if len(rows) == 0 {
		return 0, 0, nil
	}
	var sum float64
	for _, r := range rows {
		sum += math.Sqrt(c.Posterior(scoring.Moments{N: r.N, Mean: r.MeanLog, M2: r.M2Log}, scoring.Prior{}).LogVar)
	}
	return sum / float64(len(rows)), len(rows), nil
}

// PruneScoringObservations deletes observations applied before cutoff: the
// model keeps their statistics, the log need not keep them. It returns how
// many it deleted.
func PruneScoringObservations(ctx context.Context, db bun.IDB, cutoff time.Time) (int, error) {
	res, err := db.NewDelete().Model((*ScoringObservation)(nil)).Where("applied_at < ?", cutoff).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: prune scoring observations: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
