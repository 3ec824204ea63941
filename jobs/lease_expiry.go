package jobs

import (
	"context"
	"fmt"

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

// ExpireLeases ends every running lease past its expiry, each in its own
// transaction through the job lifecycle (it completes, "lease expired"),
// and logs how many.
func ExpireLeases(ctx context.Context, d Deps) error {
	var ids []int64
	if err := d.DB.Bun.NewSelect().Model((*models.Job)(nil)).Column("id").
		Where("state = ?", models.JobRunning).Where("executor = ?", models.ExecutorLease).
		Where("lease_expires_at <= ?", d.Now()).OrderExpr("id").Scan(ctx, &ids); err != nil {
		return fmt.Errorf("jobs: expired leases: %w", err)
	}
	var ended []int64
	for _, id := range ids {
		err := d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			j, err := d.Lifecycle.Lock(ctx, tx, id)
			if err != nil {
				return err
			}
			now := d.Now()
			if j.State != models.JobRunning || j.LeaseExpiresAt == nil || j.LeaseExpiresAt.After(now) {
				return nil // released or renewed meanwhile
			}
			ended = append(ended, id)
			return d.Lifecycle.RequestStop(ctx, tx, j, models.StopRequest{Kind: models.StopExpire, Reason: "lease expired"}, now)
		})
		if err != nil {
			return fmt.Errorf("jobs: expire lease %d: %w", id, err)
		}
	}
	if len(ended) > 0 {
		d.Logger.Info("leases expired", "jobs", ended)
	}
	return nil
}
