package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// invariantSweepEvery is the sweep's period.
const invariantSweepEvery = time.Minute

// unhandedAfter is how long a node job may sit placed without its start
// command before the sweep hands it over again.
const unhandedAfter = time.Minute

// InvariantSweepArgs asks for one invariant sweep.
type InvariantSweepArgs struct{}

// Kind is the River job kind.
func (InvariantSweepArgs) Kind() string { return "invariant_sweep" }

// InvariantSweepWorker is the defense in depth of the job lifecycle: it
// looks for GPUs held by jobs that do not run, two live allocations on one
// GPU, running jobs on no GPU and node jobs never handed over, repairs each
// through the lifecycle, and reports it (an error line in the log, the
// gpusched_invariant_findings_total metric, an admin notification). In
// normal operation it finds nothing.
type InvariantSweepWorker struct {
	river.WorkerDefaults[InvariantSweepArgs]
	deps *Deps
}

// Work runs one sweep.
func (w *InvariantSweepWorker) Work(ctx context.Context, _ *river.Job[InvariantSweepArgs]) error {
	_, err := SweepInvariants(ctx, *w.deps)
	return err
}

// SweepInvariants runs one sweep in one transaction and returns what it
// found and repaired.
func SweepInvariants(ctx context.Context, d Deps) ([]models.InvariantFinding, error) {
	var found []models.InvariantFinding
	err := d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		var err error
		found, err = d.Lifecycle.SweepInvariants(ctx, tx, unhandedAfter, d.Now())
		return err
	})
	for _, f := range found {
		d.Logger.Error("invariant broken and repaired", "kind", f.Kind, "job", f.JobID, "gpu", f.GPUID, "detail", f.Detail)
	}
	return found, err
}

func invariantSweepPeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(invariantSweepEvery),
		func() (river.JobArgs, *river.InsertOpts) { return InvariantSweepArgs{}, nil },
		&river.PeriodicJobOpts{ID: "invariant_sweep"})
}
