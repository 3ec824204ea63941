package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// timeLimitEvery is the period of the time-limit sweep: a job is stopped at
// most this long after its limit (Slurm checks every 30 s).
const timeLimitEvery = 5 * time.Second

// TimeLimitArgs asks for one sweep of jobs past their time limit.
type TimeLimitArgs struct{}

// Kind is the River job kind.
func (TimeLimitArgs) Kind() string { return "time_limit" }

// TimeLimitWorker stops running jobs that have run past their time limit.
type TimeLimitWorker struct {
	river.WorkerDefaults[TimeLimitArgs]
	deps *Deps
}

// Work runs one sweep.
func (w *TimeLimitWorker) Work(ctx context.Context, _ *river.Job[TimeLimitArgs]) error {
	return EnforceTimeLimits(ctx, *w.deps)
}

// timeLimitPeriodic runs the sweep every timeLimitEvery.
func timeLimitPeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(timeLimitEvery),
		func() (river.JobArgs, *river.InsertOpts) { return TimeLimitArgs{}, nil },
		&river.PeriodicJobOpts{ID: "time_limit", RunOnStart: true})
}

// EnforceTimeLimits asks every running job past its time limit to stop,
// each in its own transaction through the job lifecycle: its executor sends
// SIGTERM, waits the job's stop grace, then SIGKILL, and the job ends
// timeout whatever its exit (a person's cancel still wins). A job already
// asked to stop for its limit, or canceled, is left to end.
func EnforceTimeLimits(ctx context.Context, d Deps) error {
	var ids []int64
	err := d.DB.Bun.NewSelect().Model((*models.Job)(nil)).Column("id").
		Where("state = ?", models.JobRunning).Where("time_limit_s IS NOT NULL").
		Where("started_at + time_limit_s * interval '1 second' <= ?", d.Now()).
		Where("stop_kind NOT IN (?, ?)", models.StopTimeLimit, models.StopCancel).
		OrderExpr("id").Scan(ctx, &ids)
	if err != nil {
		return fmt.Errorf("jobs: jobs past their time limit: %w", err)
	}
	var stopped []int64
	for _, id := range ids {
		err := d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			j, err := d.Lifecycle.Lock(ctx, tx, id)
			if err != nil {
				return err
			}
			now := d.Now()
			if j.State != models.JobRunning || j.TimeLimitS == nil || j.StartedAt == nil ||
				j.StartedAt.Add(time.Duration(*j.TimeLimitS)*time.Second).After(now) {
				return nil // ended, or requeued and started again, meanwhile
			}
			stopped = append(stopped, id)
			return d.Lifecycle.RequestStop(ctx, tx, j, models.StopRequest{Kind: models.StopTimeLimit, Reason: timeLimitReason(j.Job)}, now)
		})
		if err != nil {
			return fmt.Errorf("jobs: time limit of job %d: %w", id, err)
		}
	}
	if len(stopped) > 0 {
		d.Logger.Info("jobs stopped at their time limit", "jobs", stopped)
	}
	return nil
}

// timeLimitReason is the sentence of j's end at its time limit.
func timeLimitReason(j *models.Job) string {
	return fmt.Sprintf("reached its time limit of %s: SIGTERM, then SIGKILL after its stop grace of %s",
		localtime.Span(time.Duration(*j.TimeLimitS)*time.Second), localtime.Span(time.Duration(j.StopGraceS)*time.Second))
}
