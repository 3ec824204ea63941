package jobs

import (
	"context"
	"errors"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// legacyDispatchArgs is the dispatch River job an earlier release queued
// for each placed job. The scheduling pass now hands jobs to their
// executor itself; one still queued at an upgrade hands its job over
// through the lifecycle.
type legacyDispatchArgs struct {
	JobID int64 `json:"job_id"`
}

// Kind is the River job kind.
func (legacyDispatchArgs) Kind() string { return "dispatch" }

type legacyDispatchWorker struct {
	river.WorkerDefaults[legacyDispatchArgs]
	deps *Deps
}

// Work hands a job still scheduled, and not handed over, to its executor.
func (w *legacyDispatchWorker) Work(ctx context.Context, job *river.Job[legacyDispatchArgs]) error {
	return w.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, err := w.deps.Lifecycle.Lock(ctx, tx, job.Args.JobID)
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		if err != nil || j.State != models.JobScheduled || j.Executor != models.ExecutorNode {
			return err
		}
		if _, err := models.LatestCommand(ctx, tx, j.ID, models.CommandStart); err == nil {
			return nil // handed over already
		}
		return w.deps.Lifecycle.Rehand(ctx, tx, j, w.deps.Now())
	})
}

// legacyStopArgs is the stop River job an earlier release queued for a
// cancel or a preemption of a running job. One still queued at an upgrade
// becomes the lifecycle's stop request.
type legacyStopArgs struct {
	JobID  int64  `json:"job_id"`
	State  string `json:"state"` // preempted or canceled
	Reason string `json:"reason"`
}

// Kind is the River job kind.
func (legacyStopArgs) Kind() string { return "stop" }

type legacyStopWorker struct {
	river.WorkerDefaults[legacyStopArgs]
	deps *Deps
}

// Work asks the job to stop as the earlier release meant.
func (w *legacyStopWorker) Work(ctx context.Context, job *river.Job[legacyStopArgs]) error {
	kind := models.StopCancel
	if job.Args.State == models.JobPreempted {
		kind = models.StopPreempt
	}
	return w.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, err := w.deps.Lifecycle.Lock(ctx, tx, job.Args.JobID)
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		err = w.deps.Lifecycle.RequestStop(ctx, tx, j, models.StopRequest{Kind: kind, Reason: job.Args.Reason}, w.deps.Now())
		if errors.Is(err, models.ErrJobEnded) {
			return nil
		}
		return err
	})
}
