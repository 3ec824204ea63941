package jobs

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// LeaseExpiryArgs asks for one sweep of expired leases.
type LeaseExpiryArgs struct{}

// Kind is the River job kind.
func (LeaseExpiryArgs) Kind() string { return "lease_expiry" }

// LeaseExpiryWorker ends leases whose time is up and frees their GPUs.
type LeaseExpiryWorker struct {
	river.WorkerDefaults[LeaseExpiryArgs]
	deps *Deps
}

// Work runs one sweep.
func (w *LeaseExpiryWorker) Work(ctx context.Context, _ *river.Job[LeaseExpiryArgs]) error {
	return ExpireLeases(ctx, *w.deps)
}

// ExpireLeases completes every running lease past its expiry, in one
// transaction, and reports how many.
func ExpireLeases(ctx context.Context, d Deps) error {
	return d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		now := d.Now()
		var ids []int64
		if err := tx.NewSelect().Model((*models.Job)(nil)).Column("id").
			Where("state = ?", models.JobRunning).Where("executor = ?", models.ExecutorLease).
			Where("lease_expires_at <= ?", now).OrderExpr("id").For("UPDATE SKIP LOCKED").Scan(ctx, &ids); err != nil {
			return err
		}
		for _, id := range ids {
			if err := EndLease(ctx, tx, id, models.JobCompleted, "lease expired", now); err != nil {
				return err
			}
		}
		if len(ids) > 0 {
			d.Logger.Info("leases expired", "jobs", ids)
		}
		return nil
	})
}
