package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Bounds of one retention run.
const (
	// retentionBatch is how many rows one statement deletes at most, so
	// that a big backlog never holds locks for long.
	retentionBatch = 1000
	// retentionBudget is how long one run keeps starting batches: it ends
	// well within River's JobTimeout, and the next run goes on.
	retentionBudget = 30 * time.Second
	// retentionEvery is the period of the runs.
	retentionEvery = 10 * time.Minute
)

// RetentionArgs asks for one retention run.
type RetentionArgs struct{}

// Kind is the River job kind.
func (RetentionArgs) Kind() string { return "retention" }

// InsertOpts: one attempt; the next period is the retry.
func (RetentionArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// RetentionWorker deletes history past the ages of the policy's retention
// section (scheduler.RetentionConfig).
type RetentionWorker struct {
	river.WorkerDefaults[RetentionArgs]
	deps *Deps
}

// Work runs retention once.
func (w *RetentionWorker) Work(ctx context.Context, _ *river.Job[RetentionArgs]) error {
	_, err := PruneHistory(ctx, w.deps)
	return err
}

// PruneReport is what one retention run did.
type PruneReport struct {
	// Deleted is how many rows went, by table.
	Deleted map[string]int64
	// Done is false when the run's budget ran out before every table was
	// pruned; the next run goes on.
	Done bool
}

// PruneHistory deletes, in batches of at most retentionBatch rows, the
// history past the ages of the stored policy's retention section: expired
// idempotency keys, the timelines, node commands and output of jobs that
// ended long enough ago (never a live job's; the jobs stay), delivered and
// dead notifications, and audit entries. It starts no batch once
// retentionBudget has passed on d's clock.
func PruneHistory(ctx context.Context, d *Deps) (PruneReport, error) {
	cfg, err := models.SchedulerConfig(ctx, d.DB.Bun)
	if err != nil {
		return PruneReport{}, err
	}
	now := d.Now()
	stop := now.Add(retentionBudget)
	rep := PruneReport{Deleted: map[string]int64{}, Done: true}
	for _, step := range models.PruneSteps(pruneCutoffs(cfg.Retention.WithDefaults(), now)) {
		for {
			if !d.Now().Before(stop) {
				rep.Done = false
				break
			}
			n, err := step.Batch(ctx, d.DB.Bun, retentionBatch)
			rep.Deleted[step.Table] += n
			if err != nil {
				return rep, err
			}
			if n < retentionBatch {
				break
			}
		}
	}
	var total int64
	for _, n := range rep.Deleted {
		total += n
	}
	if total > 0 || !rep.Done {
		d.Logger.Info("retention", "deleted", rep.Deleted, "done", rep.Done)
	}
	return rep, nil
}

// pruneCutoffs turns retention ages into the times before which rows go.
func pruneCutoffs(r scheduler.RetentionConfig, now time.Time) models.PruneCutoffs {
	before := func(a scheduler.Age) time.Time { return now.Add(-time.Duration(a)) }
	return models.PruneCutoffs{
		IdempotencyKeys: before(r.IdempotencyKeys),
		JobEvents:       before(r.JobEvents),
		NodeCommands:    before(r.NodeCommands),
		Notifications:   before(r.Notifications),
		AuditLog:        before(r.AuditLog),
	}
}

// retentionPeriodic runs retention every retentionEvery, not at start: a
// replica that starts has other work first.
func retentionPeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(retentionEvery),
		func() (river.JobArgs, *river.InsertOpts) { return RetentionArgs{}, nil },
		&river.PeriodicJobOpts{ID: "retention"})
}
