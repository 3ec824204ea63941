package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// StateLost is the end a stop or node-down sweep gives a run whose node
// lost it: the job is requeued while its retries last, else it fails.
const StateLost = "lost"

// finishNodeJob ends the current run of a job the node executor ran: its
// GPUs are released and it moves to state — completed, failed, canceled,
// preempted (back to the queue at its place) or StateLost (requeued while
// retries remain, else failed). j must be locked by the caller.
func finishNodeJob(ctx context.Context, tx *models.Tx, j *models.Job, state, reason string, exitCode *int, now time.Time) error {
	if models.IsTerminal(j.State) || j.State == models.JobQueued {
		return nil
	}
	if _, err := models.ReleaseJob(ctx, tx, j.ID, reason, now); err != nil {
		return err
	}
	q := tx.NewUpdate().Model((*models.Job)(nil)).Where("id = ?", j.ID).Set("exit_code = ?", exitCode)
	if state == StateLost {
		if j.RetryCount < j.MaxRetries {
			state = models.JobPreempted
			q = q.Set("retry_count = retry_count + 1")
			reason += fmt.Sprintf("; retry %d of %d", j.RetryCount+1, j.MaxRetries)
		} else {
			state = models.JobFailed
		}
	}
	if state == models.JobFailed {
		q = q.Set("failure_reason = ?", reason)
	}
	if state == models.JobPreempted { // attained service is kept across runs (las, gittins)
		q = q.Set("attained_gpu_s = attained_gpu_s + gpu_count * greatest(0, extract(epoch from (?::timestamptz - coalesce(started_at, scheduled_at, ?::timestamptz))))", now, now).
			Set("preempted_at = ?", now)
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("jobs: end job %d: %w", j.ID, err)
	}
	running := j.State == models.JobRunning
	switch state {
	case models.JobCompleted:
		if !running {
			if err := moveJob(ctx, tx, j.ID, models.JobRunning, "started", now); err != nil {
				return err
			}
		}
		done, err := models.MoveJob(ctx, tx, j.ID, models.JobCompleted, reason, nil, now)
		if err != nil {
			return err
		}
		// What the run teaches the scoring model (runtime on its GPU model).
		return ObserveCompletion(ctx, tx, done, now)
	case models.JobPreempted:
		if running {
			if err := moveJob(ctx, tx, j.ID, models.JobPreempted, reason, now); err != nil {
				return err
			}
		}
		return moveJob(ctx, tx, j.ID, models.JobQueued, "back in the queue at its place", now)
	case models.JobFailed, models.JobCanceled:
		return moveJob(ctx, tx, j.ID, state, reason, now)
	}
	return fmt.Errorf("jobs: end job %d: unknown end state %q", j.ID, state)
}

func moveJob(ctx context.Context, tx *models.Tx, id int64, to, reason string, now time.Time) error {
	_, err := models.MoveJob(ctx, tx, id, to, reason, nil, now)
	return err
}
