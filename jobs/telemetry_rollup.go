package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// TelemetryRollupArgs asks for one run of the usage history's upkeep:
// sample the queue, roll raw GPU samples up to minutes and hours, and
// delete what is past its retention.
type TelemetryRollupArgs struct{}

// Kind is the River job kind.
func (TelemetryRollupArgs) Kind() string { return "telemetry_rollup" }

// TelemetryRollupWorker keeps the usage history: queue samples, roll-ups
// and retention (Config.Retention).
type TelemetryRollupWorker struct {
	river.WorkerDefaults[TelemetryRollupArgs]
	deps *Deps
}

// Work runs one upkeep.
func (w *TelemetryRollupWorker) Work(ctx context.Context, _ *river.Job[TelemetryRollupArgs]) error {
	return RollUpTelemetry(ctx, *w.deps)
}

// RollUpTelemetry samples the queue and rolls up and trims the telemetry
// history, in one transaction.
func RollUpTelemetry(ctx context.Context, d Deps) error {
	keep := d.Config.Retention
	if keep == (models.Retention{}) {
		keep = models.DefaultRetention()
	}
	now := d.Now()
	return d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		if err := models.SampleQueue(ctx, tx, now); err != nil {
			return err
		}
		res, err := models.RollUp(ctx, tx, now, keep)
		if err != nil {
			return err
		}
		d.Logger.Debug("telemetry rolled up", "minutes", res.Minutes, "hours", res.Hours,
			"raw_deleted", res.RawDeleted, "minutes_deleted", res.MinutesDeleted, "hours_deleted", res.HoursDeleted)
		return nil
	})
}

// telemetryRollupPeriodic runs the upkeep every minute, which is also the
// queue graph's resolution.
func telemetryRollupPeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return TelemetryRollupArgs{}, nil },
		&river.PeriodicJobOpts{ID: "telemetry_rollup", RunOnStart: true})
}
