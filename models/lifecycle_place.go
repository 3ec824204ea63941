package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Placement is where and why the scheduling pass starts a job.
type Placement struct {
	GPUIDs []int64
	// Reason is the sentence of the job's move to scheduled.
	Reason string
	// ConsumeHolds: the owner has pre-warm holds in force, which the job
	// uses up (the pass knows from its snapshot; false spares the lookup).
	ConsumeHolds bool
	// Leases is the lease policy in force: a lease's default TTL and how
	// long its client has to confirm the grant (zero: the defaults).
	Leases scheduler.LeasePolicy
}

// Place starts queued job j on p.GPUIDs in tx: it allocates them (all or
// none: ErrGPUTaken), uses up the owner's holds, and hands the job to its
// executor in the same transaction. A lease runs at once (the client runs
// its own process), until p.Leases.ConfirmWithin unless its client confirms
// the grant (ConfirmLease); a node job's start command is queued
// (allocating); a Ray job waits for its River hand-over (scheduled). An
// executor's Refusal fails the job and frees the GPUs. A job no longer
// queued (canceled since the pass read it) is left alone: ErrNotQueued.
func (lc *Lifecycle) Place(ctx context.Context, tx *Tx, j *LockedJob, p Placement, now time.Time) error {
	if err := j.in(tx); err != nil {
		return err
	}
	if j.State != JobQueued {
		return fmt.Errorf("models: place job %d (%s): %w", j.ID, j.State, ErrNotQueued)
	}
	if _, err := allocate(ctx, tx, j.ID, j.OwnerID, p.GPUIDs, now); err != nil {
		return err
	}
	if p.ConsumeHolds {
		if _, err := ConsumeHolds(ctx, tx, j.Job, now); err != nil {
			return err
		}
	}
	var c change
	c.to(JobScheduled, p.Reason)
	if j.Executor == ExecutorLease {
		c.to(JobAllocating, "lease granted")
		c.to(JobRunning, "GPUs handed to the client")
		grantLease(&c, j.Job, p.Leases, now)
		return lc.apply(ctx, tx, j, c, now)
	}
	return lc.hand(ctx, tx, j, c, now)
}

// hand gives placed job j to its executor and writes c with what it did.
func (lc *Lifecycle) hand(ctx context.Context, tx *Tx, j *LockedJob, c change, now time.Time) error {
	ex, ok := lc.Executors[j.Executor]
	if !ok {
		return lc.refuse(ctx, tx, j, c, fmt.Sprintf("this server has no %q executor to run the job", j.Executor), now)
	}
	gpus, err := JobGPUs(ctx, tx, j.ID)
	if err != nil {
		return err
	}
	h, err := ex.Hand(ctx, tx, j.Job, gpus, now)
	var refusal *Refusal
	if errors.As(err, &refusal) {
		return lc.refuse(ctx, tx, j, c, refusal.Reason, now)
	}
	if err != nil {
		return fmt.Errorf("models: hand job %d to %s: %w", j.ID, j.Executor, err)
	}
	if h.Taken {
		c.to(JobAllocating, h.Detail)
	}
	if h.StartCommandID != nil {
		c.val("start_command_id", *h.StartCommandID)
	}
	return lc.apply(ctx, tx, j, c, now)
}

// Rehand hands placed job j to its executor again when the hand-over never
// happened (a job placed by an older release whose dispatch was lost): the
// invariant sweep's repair. A job no longer scheduled is left as it is.
func (lc *Lifecycle) Rehand(ctx context.Context, tx *Tx, j *LockedJob, now time.Time) error {
	if err := j.in(tx); err != nil {
		return err
	}
	if j.State != JobScheduled {
		return nil
	}
	return lc.hand(ctx, tx, j, change{}, now)
}

// refuse fails a job its executor will not run, in the step that placed it.
func (lc *Lifecycle) refuse(ctx context.Context, tx *Tx, j *LockedJob, c change, why string, now time.Time) error {
	if err := lc.apply(ctx, tx, j, c, now); err != nil {
		return err
	}
	return lc.end(ctx, tx, j, outcome{state: JobFailed, cause: CauseFailed, reason: why}, nil, now)
}

// Handed records that the executor took job j (Ray accepted it): scheduled
// moves to allocating. A job past that is left as it is.
func (lc *Lifecycle) Handed(ctx context.Context, tx *Tx, j *LockedJob, detail string, now time.Time) error {
	if err := j.in(tx); err != nil {
		return err
	}
	if j.State != JobScheduled {
		return nil
	}
	var c change
	c.to(JobAllocating, detail)
	return lc.apply(ctx, tx, j, c, now)
}

// Started records that job j's process runs: it moves to running (through
// allocating when the executor skipped the hand-over's answer). A job
// already running, ended or requeued is left as it is.
func (lc *Lifecycle) Started(ctx context.Context, tx *Tx, j *LockedJob, detail string, now time.Time) error {
	if err := j.in(tx); err != nil {
		return err
	}
	var c change
	switch j.State {
	case JobScheduled:
		c.to(JobAllocating, "taken by its executor")
	case JobAllocating:
	default:
		return nil
	}
	c.to(JobRunning, detail)
	return lc.apply(ctx, tx, j, c, now)
}
