package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// applyRayStatus maps Ray's status of run runID onto its job, in one
// transaction with the job locked, through the job lifecycle:
//
//	PENDING   → allocating (Ray has it, waiting for its resources)
//	RUNNING   → running
//	SUCCEEDED → the run ended by itself: completed, with the driver's exit code
//	FAILED    → the run ended by itself: failed, with Ray's message
//	STOPPED   → the run was stopped: the job ends as what was asked of it
//	            decides (canceled; preempted: back to the queue); a stop
//	            nobody here asked for fails it
//
// An end releases the GPUs. A run that ended by itself before a preemption
// reached it ends as it ended; a cancel wins whatever. A stop Ray has not
// confirmed within StopTimeout ends the job anyway and the run is stopped
// again at the next sync.
func (e *RayExecutor) applyRayStatus(ctx context.Context, run *models.RayRun, d ray.JobDetails) error {
	return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, r, err := e.lockRun(ctx, tx, run)
		if err != nil {
			return err
		}
		now := e.deps.Now()
		if r.State == models.RayRunSubmitted && r.RayStatus == d.Status && r.Message == d.Message && !ray.IsTerminal(d.Status) &&
			!(d.Status == ray.StatusRunning && j.State != models.JobRunning) &&
			(r.StopRequestedAt == nil || now.Sub(*r.StopRequestedAt) < e.stopWait(j.Job)) {
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
		lc := e.deps.Lifecycle
		if err := lc.Handed(ctx, tx, j, "handed to Ray as "+r.SubmissionID, now); err != nil {
			return err
		}
		switch {
		case d.Status == ray.StatusRunning && j.State == models.JobAllocating:
			if err := lc.Started(ctx, tx, j, "running on Ray", now); err != nil {
				return err
			}
		case ray.IsTerminal(d.Status):
			r.State = models.RayRunDone
			if err := lc.Finish(ctx, tx, j, rayEnd(r, d), now); err != nil {
				return err
			}
		case r.StopRequestedAt != nil && now.Sub(*r.StopRequestedAt) >= e.stopWait(j.Job):
			return e.endUnconfirmedTx(ctx, tx, j, r)
		}
		return models.UpdateRayRun(ctx, tx, r, now)
	})
}

// rayEnd is how a terminal Ray status saw the run end.
func rayEnd(r *models.RayRun, d ray.JobDetails) models.RunEnd {
	switch d.Status {
	case ray.StatusSucceeded:
		code := 0
		if d.DriverExitCode != nil {
			code = *d.DriverExitCode
		}
		return models.RunEnd{ExitCode: &code, Reason: "Ray: " + d.Message}
	case ray.StatusFailed:
		return models.RunEnd{ExitCode: d.DriverExitCode, Reason: "Ray: " + d.Message}
	}
	if r.StopRequestedAt != nil || r.StopState != "" {
		return models.RunEnd{Stopped: true, ExitCode: d.DriverExitCode}
	}
	return models.RunEnd{ExitCode: d.DriverExitCode, Reason: "stopped on the Ray cluster outside GPUScheduler"}
}

// lose gives up run r: its job is lost (requeued while its retries last,
// else failed, unless what was asked of it decides) and its GPUs released;
// the run is stopped on Ray when it answers again, so it never runs twice.
func (e *RayExecutor) lose(ctx context.Context, run *models.RayRun, why string) error {
	return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, r, err := e.lockRun(ctx, tx, run)
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
		if models.IsTerminal(j.State) || j.State == models.JobQueued {
			return nil
		}
		return e.deps.Lifecycle.Finish(ctx, tx, j, models.RunEnd{Lost: true, Reason: why}, now)
	})
}

// endUnconfirmed ends a stopped job whose stop Ray did not confirm in time.
func (e *RayExecutor) endUnconfirmed(ctx context.Context, run *models.RayRun) error {
	return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, r, err := e.lockRun(ctx, tx, run)
		if err != nil || r.StopRequestedAt == nil || r.State != models.RayRunSubmitted {
			return err
		}
		return e.endUnconfirmedTx(ctx, tx, j, r)
	})
}

func (e *RayExecutor) endUnconfirmedTx(ctx context.Context, tx *models.Tx, j *models.LockedJob, r *models.RayRun) error {
	now := e.deps.Now()
	note := fmt.Sprintf("Ray did not confirm the stop within %s; GPUs released", e.stopWait(j.Job))
	r.State, r.StopRequestedAt = models.RayRunLost, nil // stopped again at the next sync
	if err := models.UpdateRayRun(ctx, tx, r, now); err != nil {
		return err
	}
	if models.IsTerminal(j.State) || j.State == models.JobQueued {
		return nil
	}
	return e.deps.Lifecycle.Finish(ctx, tx, j, models.RunEnd{Stopped: true, Note: note}, now)
}

// lockRun locks run's job, then reads the run afresh: every writer of a
// run holds its job's lock, so what is read is current until the commit.
func (e *RayExecutor) lockRun(ctx context.Context, tx *models.Tx, run *models.RayRun) (*models.LockedJob, *models.RayRun, error) {
	j, err := e.deps.Lifecycle.Lock(ctx, tx, run.JobID)
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
func (e *RayExecutor) stopWait(j *models.Job) time.Duration {
	if j.Checkpoint && j.StopKind == models.StopPreempt {
		return e.cfg.StopTimeout + time.Duration(j.StopGraceS)*time.Second
	}
	return e.cfg.StopTimeout
}
