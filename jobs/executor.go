package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// Executor hands a placed job to where it runs and stops it again. The
// lease executor is built in (the client runs its own process); the node
// agent and Ray plug in here.
type Executor interface {
	// Name is the jobs.executor value it serves ("node", "ray").
	Name() string
	// Dispatch starts job on its allocated GPUs. It runs in a River job,
	// outside the pass's transaction, and may be retried: it must be
	// idempotent by job id.
	Dispatch(ctx context.Context, job *models.Job) error
	// Stop asks the running job to stop; the executor reports the end (and
	// the GPUs are released) when it is confirmed.
	Stop(ctx context.Context, job *models.Job, reason string) error
}

// Executors is the set of executors this server can use, by name.
type Executors map[string]Executor

// Has reports whether jobs of executor name can run here. Leases always can.
func (e Executors) Has(name string) bool {
	_, ok := e[name]
	return name == models.ExecutorLease || ok
}

// dispatch moves a just-allocated job on. A lease is granted at once: the
// client is waiting for the GPUs and runs its own process. Other jobs get a
// dispatch River job in the same transaction (invariant 3).
func (e Executors) dispatch(ctx context.Context, d Deps, tx *models.Tx, job *models.Job, now time.Time) error {
	if job.Executor == models.ExecutorLease {
		if _, err := models.MoveJob(ctx, tx, job.ID, models.JobAllocating, "lease granted", nil, now); err != nil {
			return err
		}
		if _, err := models.MoveJob(ctx, tx, job.ID, models.JobRunning, "GPUs handed to the client", nil, now); err != nil {
			return err
		}
		if job.LeaseTTLS != nil {
			exp := now.Add(time.Duration(*job.LeaseTTLS) * time.Second)
			if _, err := tx.NewUpdate().Model((*models.Job)(nil)).Set("lease_expires_at = ?", exp).Where("id = ?", job.ID).Exec(ctx); err != nil {
				return fmt.Errorf("jobs: set lease expiry of job %d: %w", job.ID, err)
			}
		}
		return nil
	}
	var args river.JobArgs = DispatchArgs{JobID: job.ID}
	if q, ok := e[job.Executor].(interface{ dispatchArgs(int64) river.JobArgs }); ok {
		args = q.dispatchArgs(job.ID) // Ray: ray_dispatch, with its own backoff
	}
	if _, err := d.River.InsertTx(ctx, tx.PGX(), args, nil); err != nil {
		return fmt.Errorf("jobs: queue dispatch of job %d: %w", job.ID, err)
	}
	return nil
}

// stop ends a running job for reason, moving it to state (preempted or
// canceled). A lease ends at once and its GPUs are released; a preempted
// lease goes back to the queue keeping its place. Other executors get a
// stop River job and release when the stop is confirmed.
func (e Executors) stop(ctx context.Context, d Deps, tx *models.Tx, job *models.Job, state, reason string, now time.Time) error {
	if job.Executor != models.ExecutorLease {
		_, err := d.River.InsertTx(ctx, tx.PGX(), StopArgs{JobID: job.ID, State: state, Reason: reason}, nil)
		if err != nil {
			return fmt.Errorf("jobs: queue stop of job %d: %w", job.ID, err)
		}
		return nil
	}
	return EndLease(ctx, tx, job.ID, state, reason, now)
}

// EndLease ends a lease job: its GPUs are released and it moves to state.
// A preempted lease goes straight back to the queue, keeping its place.
func EndLease(ctx context.Context, tx *models.Tx, jobID int64, state, reason string, now time.Time) error {
	if _, err := models.ReleaseJob(ctx, tx, jobID, reason, now); err != nil {
		return err
	}
	j, err := models.MoveJob(ctx, tx, jobID, state, reason, nil, now)
	if err != nil {
		return err
	}
	if err := ObserveCompletion(ctx, tx, j, now); err != nil { // only if completed
		return err
	}
	if state == models.JobPreempted {
		if _, err := models.MoveJob(ctx, tx, jobID, models.JobQueued, "back in the queue at its place", nil, now); err != nil {
			return err
		}
	}
	return nil
}

// Stop asks a job's executor to stop it because a person canceled it.
func (d *Deps) Stop(ctx context.Context, tx *models.Tx, job *models.Job, reason string) error {
	return d.Executors.stop(ctx, *d, tx, job, models.JobCanceled, reason, d.Now())
}
