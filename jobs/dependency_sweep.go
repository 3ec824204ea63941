package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// DependencySweepArgs asks for one sweep of conditions left unsettled.
type DependencySweepArgs struct{}

// Kind is the River job kind.
func (DependencySweepArgs) Kind() string { return "dependency_sweep" }

// DependencySweepWorker settles the conditions of queued jobs on jobs that
// ended (or were deleted) without settling them. A job's end settles them
// in its own transaction; this is the safety net.
type DependencySweepWorker struct {
	river.WorkerDefaults[DependencySweepArgs]
	deps *Deps
}

// Work runs one sweep.
func (w *DependencySweepWorker) Work(ctx context.Context, _ *river.Job[DependencySweepArgs]) error {
	return SweepDependencies(ctx, *w.deps)
}

// dependencySweepPeriodic runs the sweep every 30 s.
func dependencySweepPeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(30*time.Second),
		func() (river.JobArgs, *river.InsertOpts) { return DependencySweepArgs{}, nil },
		&river.PeriodicJobOpts{ID: "dependency_sweep", RunOnStart: true})
}

// SweepDependencies settles every unsettled condition, a transaction per
// job waited for, through the lifecycle (met: the waiting job may start;
// never met: it is canceled, saying why), and logs what it settled.
func SweepDependencies(ctx context.Context, d Deps) error {
	stale, err := models.StaleDependencies(ctx, d.DB.Bun)
	if err != nil {
		return err
	}
	for target, state := range stale {
		err := d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			return d.Lifecycle.SettleDependencies(ctx, tx, target, state, d.Now())
		})
		if err != nil {
			return fmt.Errorf("jobs: settle dependencies on job %d: %w", target, err)
		}
	}
	if len(stale) > 0 {
		d.Logger.Warn("dependency sweep settled conditions a job's end had left", "jobs", len(stale))
	}
	return nil
}
