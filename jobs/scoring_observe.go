package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// scoringBatch is how many observations one transaction folds in.
const scoringBatch = 500

// scoringKeep is how long applied observations stay in the log.
const scoringKeep = 30 * 24 * time.Hour

// ScoringObserveArgs asks for the pending scoring observations to be folded
// into the model. Observations are rows (scoring_observations) written in
// the transaction that produced them; this job applies all that are pending,
// oldest first, under one cluster-wide lock, so its args carry nothing and
// any number of these jobs is safe.
type ScoringObserveArgs struct{}

// Kind is the River job kind.
func (ScoringObserveArgs) Kind() string { return "scoring_observe" }

// ScoringObserveWorker folds pending observations into the learned runtimes
// and interference.
type ScoringObserveWorker struct {
	river.WorkerDefaults[ScoringObserveArgs]
	deps *Deps
}

// Work applies every pending observation, a batch per transaction, and
// prunes those applied more than 30 days ago.
func (w *ScoringObserveWorker) Work(ctx context.Context, _ *river.Job[ScoringObserveArgs]) error {
	if _, err := ApplyScoringObservations(ctx, *w.deps); err != nil {
		return err
	}
	_, err := models.PruneScoringObservations(ctx, w.deps.DB.Bun, w.deps.Now().Add(-scoringKeep))
	return err
}

// ApplyScoringObservations folds every pending observation into the model
// and returns how many.
func ApplyScoringObservations(ctx context.Context, d Deps) (int, error) {
	cfg, err := d.Config.scoringConfig()
	if err != nil {
		return 0, err
	}
	total := 0
	for {
		var n int
		err := d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			var err error
			n, err = models.ApplyScoringObservations(ctx, tx, cfg, scoringBatch, d.Now())
			return err
		})
		if err != nil {
			return total, fmt.Errorf("jobs: apply scoring observations: %w", err)
		}
		total += n
		if n < scoringBatch {
			return total, nil
		}
	}
}

// scoringConfig is the scoring model's configuration every worker uses
// (learned estimates, steering, folding observations in): the one
// configured, or the model's defaults when Config.Scoring was left zero.
func (c Config) scoringConfig() (scoring.Config, error) {
	if c.Scoring == (scoring.Config{}) {
		return scoring.DefaultConfig(), nil
	}
	if err := c.Scoring.Validate(); err != nil {
		return scoring.Config{}, fmt.Errorf("jobs: %w", err)
	}
	return c.Scoring, nil
}

// EnqueueScoringObserve queues the folding of observations recorded in tx,
// to run once tx commits. It is what POST /v1/observe calls.
func (d *Deps) EnqueueScoringObserve(ctx context.Context, tx *models.Tx) error {
	if d.River == nil {
		return nil // the periodic sweep applies it
	}
	if _, err := d.River.InsertTx(ctx, tx.PGX(), ScoringObserveArgs{}, nil); err != nil {
		return fmt.Errorf("jobs: queue scoring observe: %w", err)
	}
	return nil
}

// ObserveCompletion records, in tx, what job — which has just completed at
// now — teaches the scoring model: its measured runtime on its GPU model,
// beside the job types that shared its node. The periodic scoring_observe
// sweep (every few seconds) folds it in, so callers need no River client.
// A lease that ran out its TTL was cut off rather than finished: its runtime
// says nothing reliable and is not recorded. Recording twice is harmless.
func ObserveCompletion(ctx context.Context, tx *models.Tx, job *models.Job, now time.Time) error {
	if job.State != models.JobCompleted {
		return nil
	}
	if job.Executor == models.ExecutorLease && job.LeaseExpiresAt != nil && !now.Before(*job.LeaseExpiresAt) {
		return nil
	}
	end := now
	if job.EndedAt != nil {
		end = *job.EndedAt
	}
	o, ok, err := models.CompletionObservation(ctx, tx, job, end)
	if err != nil || !ok {
		return err
	}
	if _, err := models.RecordObservation(ctx, tx, o, models.ObservationJob, &job.ID, now); err != nil {
		return fmt.Errorf("jobs: observe completion of job %d: %w", job.ID, err)
	}
	return nil
}

// scoringObservePeriodic is the safety net that applies observations
// recorded without a River client at hand (completions).
func scoringObservePeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(5*time.Second),
		func() (river.JobArgs, *river.InsertOpts) { return ScoringObserveArgs{}, nil },
		&river.PeriodicJobOpts{ID: "scoring_observe", RunOnStart: true})
}
