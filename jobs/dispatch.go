package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// DispatchArgs hands a placed job to its executor.
type DispatchArgs struct {
	JobID int64 `json:"job_id"`
}

// Kind is the River job kind.
func (DispatchArgs) Kind() string { return "dispatch" }

// DispatchWorker calls the job's executor. Transient failures are retried
// by River with backoff; a job whose executor this server does not have
// fails with a sentence saying so, and its GPUs are released.
type DispatchWorker struct {
	river.WorkerDefaults[DispatchArgs]
	deps *Deps
}

// Work dispatches one job.
func (w *DispatchWorker) Work(ctx context.Context, job *river.Job[DispatchArgs]) error {
	j, err := models.GetJob(ctx, w.deps.DB.Bun, job.Args.JobID)
	if err != nil {
		if errors.Is(err, models.ErrNotFound) {
			return river.JobCancel(err)
		}
		return err
	}
	if j.State != models.JobScheduled {
		return nil // already dispatched, or canceled meanwhile
	}
	ex, ok := w.deps.Executors[j.Executor]
	if !ok {
		return w.fail(ctx, j, fmt.Sprintf("this server has no %q executor to run the job", j.Executor))
	}
	if err := ex.Dispatch(ctx, j); err != nil {
		return fmt.Errorf("jobs: dispatch job %d to %s: %w", j.ID, j.Executor, err)
	}
	return nil
}

func (w *DispatchWorker) fail(ctx context.Context, j *models.Job, why string) error {
	return w.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		now := w.deps.Now()
		if _, err := models.ReleaseJob(ctx, tx, j.ID, why, now); err != nil {
			return err
		}
		if _, err := tx.NewUpdate().Model((*models.Job)(nil)).Set("failure_reason = ?", why).Where("id = ?", j.ID).Exec(ctx); err != nil {
			return err
		}
		_, err := models.MoveJob(ctx, tx, j.ID, models.JobFailed, why, nil, now)
		return err
	})
}

// StopArgs asks a job's executor to stop it.
type StopArgs struct {
	JobID  int64  `json:"job_id"`
	State  string `json:"state"` // preempted or canceled
	Reason string `json:"reason"`
}

// Kind is the River job kind.
func (StopArgs) Kind() string { return "stop" }

// StopWorker calls the job's executor to stop it; the executor reports the
// end. A job whose executor is missing here is ended at once.
type StopWorker struct {
	river.WorkerDefaults[StopArgs]
	deps *Deps
}

// Work stops one job.
func (w *StopWorker) Work(ctx context.Context, job *river.Job[StopArgs]) error {
	j, err := models.GetJob(ctx, w.deps.DB.Bun, job.Args.JobID)
	if err != nil {
		if errors.Is(err, models.ErrNotFound) {
			return river.JobCancel(err)
		}
		return err
	}
	if models.IsTerminal(j.State) {
		return nil
	}
	if ex, ok := w.deps.Executors[j.Executor]; ok {
		if s, ok := ex.(stateStopper); ok {
			return s.StopAs(ctx, j, job.Args.State, job.Args.Reason)
		}
		return ex.Stop(ctx, j, job.Args.Reason)
	}
	return w.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		return EndLease(ctx, tx, j.ID, job.Args.State, job.Args.Reason, w.deps.Now())
	})
}
