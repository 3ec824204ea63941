package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// applyRayStatus maps Ray's status of run runID onto its job, in one
// transaction with the job locked:
//
//	PENDING   → allocating (Ray has it, waiting for its resources)
//	RUNNING   → running
//	SUCCEEDED → completed, exit code 0
//	FAILED    → failed with Ray's message and the driver's exit code
//	STOPPED   → the state the stop asked for (canceled, or preempted: back
//	            to the queue); a stop nobody here asked for → failed
//
// An end releases the GPUs. SUCCEEDED or FAILED win over a stop that came
// too late to matter. A stop Ray has not confirmed within StopTimeout ends
// the job anyway and the run is stopped again at the next sync.
func (e *RayExecutor) applyRayStatus(ctx context.Context, run *models.RayRun, d ray.JobDetails) error {
	return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, r, err := lockRun(ctx, tx, run)
		if err != nil {
			return err
		}
		now := e.deps.Now()
		if r.State == models.RayRunSubmitted && r.RayStatus == d.Status && r.Message == d.Message && !ray.IsTerminal(d.Status) &&
			!(d.Status == ray.StatusRunning && j.State != models.JobRunning) &&
			(r.StopRequestedAt == nil || now.Sub(*r.StopRequestedAt) < e.stopWait(j, r)) {
			return nil // nothing new: no write
		}
		r.RayStatus, r.Message = d.Status, d.Message
		if r.State == models.RayRunSubmitting {
			r.State = models.RayRunSubmitted // accepted, though the dispatcher did not hear it
		}
		if models.IsTerminal(j.State) || j.State == models.JobQueued {
			// The job moved on without this run (lost, or ended at once): stop it there.
			r.State = models.RayRunLost
			if ray.IsTerminal(d.Status) {
				r.State = models.RayRunDone
			}
			return models.UpdateRayRun(ctx, tx, r, now)
		}
		if j.State == models.JobScheduled {
			if err := moveJob(ctx, tx, j.ID, models.JobAllocating, "handed to Ray as "+r.SubmissionID, now); err != nil {
				return err
			}
			j.State = models.JobAllocating
		}
		switch {
		case d.Status == ray.StatusRunning && j.State == models.JobAllocating:
			if err := moveJob(ctx, tx, j.ID, models.JobRunning, "running on Ray", now); err != nil {
				return err
			}
		case ray.IsTerminal(d.Status):
			r.State = models.RayRunDone
			state, reason := rayEnd(r, d)
			if err := finishNodeJob(ctx, tx, j, state, reason, d.DriverExitCode, now); err != nil {
				return err
			}
		case r.StopRequestedAt != nil && now.Sub(*r.StopRequestedAt) >= e.stopWait(j, r):
			return e.endUnconfirmedTx(ctx, tx, j, r)
		}
		return models.UpdateRayRun(ctx, tx, r, now)
	})
}

// rayEnd is the state and reason a terminal Ray status ends the job with.
func rayEnd(r *models.RayRun, d ray.JobDetails) (string, string) {
	switch d.Status {
	case ray.StatusSucceeded:
		return models.JobCompleted, "Ray: " + d.Message
	case ray.StatusFailed:
		return models.JobFailed, "Ray: " + d.Message
	}
	if r.StopState != "" {
		return r.StopState, r.StopReason
	}
	return models.JobFailed, "stopped on the Ray cluster outside GPUScheduler"
}

// lose gives up run r: its job is lost (requeued while its retries last,
// else failed) and its GPUs released; the run is stopped on Ray when it
// answers again, so it never runs twice.
func (e *RayExecutor) lose(ctx context.Context, run *models.RayRun, why string) error {
	return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, r, err := lockRun(ctx, tx, run)
		if err != nil {
			return err
		}
		if r.State != run.State || (r.StopRequestedAt != nil) != (run.StopRequestedAt != nil) {
			return nil // it moved meanwhile; the next sync sees it as it is
		}
		now := e.deps.Now()
		r.State, r.Message = models.RayRunLost, why
		if err := models.UpdateRayRun(ctx, tx, r, now); err != nil {
			return err
		}
		return finishNodeJob(ctx, tx, j, StateLost, why, nil, now)
	})
}

// endUnconfirmed ends a stopped job whose stop Ray did not confirm in time.
func (e *RayExecutor) endUnconfirmed(ctx context.Context, run *models.RayRun) error {
	return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, r, err := lockRun(ctx, tx, run)
		if err != nil || r.StopRequestedAt == nil || r.State != models.RayRunSubmitted {
			return err
		}
		return e.endUnconfirmedTx(ctx, tx, j, r)
	})
}

func (e *RayExecutor) endUnconfirmedTx(ctx context.Context, tx *models.Tx, j *models.Job, r *models.RayRun) error {
	now := e.deps.Now()
	reason := fmt.Sprintf("%s (Ray did not confirm the stop within %s; GPUs released)", r.StopReason, e.stopWait(j, r))
	r.State, r.StopRequestedAt = models.RayRunLost, nil // stopped again at the next sync
	if err := models.UpdateRayRun(ctx, tx, r, now); err != nil {
		return err
	}
	return finishNodeJob(ctx, tx, j, r.StopState, reason, nil, now)
}

// lockRun locks run's job, then reads the run afresh: every writer of a
// run holds its job's lock, so what is read is current until the commit.
func lockRun(ctx context.Context, tx *models.Tx, run *models.RayRun) (*models.Job, *models.RayRun, error) {
	j, err := lockJob(ctx, tx, run.JobID)
	if err != nil {
		return nil, nil, err
	}
	r := new(models.RayRun)
	if err := tx.NewSelect().Model(r).Where("id = ?", run.ID).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("jobs: ray run %d: %w", run.ID, err)
	}
	return j, r, nil
}

// stopWait is how long a stop waits for Ray's STOPPED before the GPUs are
// released anyway: StopTimeout, plus the job's stop grace when a
// checkpointing job is being preempted (it is saving its state).
func (e *RayExecutor) stopWait(j *models.Job, r *models.RayRun) time.Duration {
	if j.Checkpoint && r.StopState == models.JobPreempted {
		return e.cfg.StopTimeout + time.Duration(j.StopGraceS)*time.Second
	}
	return e.cfg.StopTimeout
}
