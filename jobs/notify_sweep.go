package jobs

import (
	"context"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// addNotifyWorkers registers the notification workers: delivery over a
// channel (notify_deliver.go, with a file per channel kind), the sweep of
// deliveries left without a job, idle reclaim (which tells gpu.idle and
// gpu.reclaimed) and the timers (booking.starting, booking.ended,
// job.waiting_long).
func addNotifyWorkers(workers *river.Workers, d *Deps) {
	river.AddWorker(workers, &NotifyDeliverWorker{deps: d, sender: sync.OnceValue(func() *sender { return newSender(d.Config.Notify) })})
	river.AddWorker(workers, &NotifySweepWorker{deps: d})
	river.AddWorker(workers, &IdleReclaimWorker{deps: d})
	river.AddWorker(workers, &NotifyTimersWorker{deps: d})
}

// NotifySweepArgs asks for one sweep of pending deliveries, the safety net
// for a row whose delivery job is gone (every row gets one in the
// transaction that writes it: models.Emit). Delivery jobs are unique per
// notification, so the sweep never doubles one that is queued.
type NotifySweepArgs struct{}

// Kind is the River job kind.
func (NotifySweepArgs) Kind() string { return "notify_sweep" }

// NotifySweepWorker enqueues a delivery for every pending notification older
// than a minute.
type NotifySweepWorker struct {
	river.WorkerDefaults[NotifySweepArgs]
	deps *Deps
}

// Work runs one sweep.
func (w *NotifySweepWorker) Work(ctx context.Context, _ *river.Job[NotifySweepArgs]) error {
	return w.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		ids, err := models.PendingDeliveries(ctx, tx, w.deps.Now().Add(-time.Minute), 500)
		if err != nil {
			return err
		}
		return models.EnqueueDeliveries(ctx, tx, ids)
	})
}

func notifySweepPeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return NotifySweepArgs{}, nil },
		&river.PeriodicJobOpts{ID: "notify_sweep"})
}
