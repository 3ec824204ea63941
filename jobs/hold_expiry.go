package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// HoldExpiryArgs asks for one sweep of holds whose TTL passed unused. The
// scheduler already ignores a hold past its end; the sweep records the
// expiry (for the hit rate) and signals a pass so waiting jobs take the GPUs.
type HoldExpiryArgs struct{}

// Kind is the River job kind.
func (HoldExpiryArgs) Kind() string { return "hold_expiry" }

// HoldExpiryWorker marks unused holds expired (counted for the hit rate) and
// signals the scheduler, so that jobs kept off the held GPUs start.
type HoldExpiryWorker struct {
	river.WorkerDefaults[HoldExpiryArgs]
	deps *Deps
}

// Work runs one sweep.
func (w *HoldExpiryWorker) Work(ctx context.Context, _ *river.Job[HoldExpiryArgs]) error {
	return ExpireHolds(ctx, *w.deps)
}

// ExpireHolds expires every hold past its end, in one transaction.
func ExpireHolds(ctx context.Context, d Deps) error {
	return d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		ids, err := models.ExpireHolds(ctx, tx, d.Now())
		if err != nil {
			return err
		}
		if len(ids) > 0 {
			d.Logger.Info("holds expired unused", "holds", ids)
		}
		return models.EmitHoldsExpired(ctx, tx, ids, d.Now()) // notifications
	})
}

// holdExpiryPeriodic sweeps every few seconds (an indexed, usually empty
// update), so GPUs of an unused hold go to waiting jobs soon after its TTL.
func holdExpiryPeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(3*time.Second),
		func() (river.JobArgs, *river.InsertOpts) { return HoldExpiryArgs{}, nil },
		&river.PeriodicJobOpts{ID: "hold_expiry", RunOnStart: true})
}
