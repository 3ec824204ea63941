package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// NotifyTimersArgs asks for one look at what time alone makes worth
// telling: bookings about to start or just ended, jobs waiting long.
type NotifyTimersArgs struct{}

// Kind is the River job kind.
func (NotifyTimersArgs) Kind() string { return "notify_timers" }

// NotifyTimersWorker emits booking.starting, booking.ended and
// job.waiting_long, each once per booking or job.
type NotifyTimersWorker struct {
	river.WorkerDefaults[NotifyTimersArgs]
	deps *Deps
}

// Work runs one look, in one transaction.
func (w *NotifyTimersWorker) Work(ctx context.Context, _ *river.Job[NotifyTimersArgs]) error {
	cfg := w.deps.Config.Notify
	lead, wait := cfg.BookingLead, cfg.WaitingLong
	if lead <= 0 {
		lead = 15 * time.Minute
	}
	if wait <= 0 {
		wait = time.Hour
	}
	return w.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		now := w.deps.Now()
		if err := models.EmitBookingTimes(ctx, tx, lead, now); err != nil {
			return err
		}
		return models.EmitWaitingLong(ctx, tx, wait, now)
	})
}

func notifyTimersPeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(30*time.Second),
		func() (river.JobArgs, *river.InsertOpts) { return NotifyTimersArgs{}, nil },
		&river.PeriodicJobOpts{ID: "notify_timers", RunOnStart: true})
}
