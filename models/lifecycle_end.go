package models

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"
)

// Causes of an allocation's end (allocations.end_cause): why the GPUs were
// given back, as data.
const (
	CauseCompleted = "completed"
	CauseFailed    = "failed"
	CauseCanceled  = "canceled"
	CausePreempted = "preempted"
	CauseReclaimed = "reclaimed"
	CauseTimeLimit = "time_limit"
	CauseLost      = "lost"
	CauseReleased  = "released"
	CauseExpired   = "expired"
	// CauseRepaired: the invariant sweep released what a job that no
	// longer runs still held.
	CauseRepaired = "repaired"
)

// RunEnd is how an executor saw a job's run end.
type RunEnd struct {
	// ExitCode of the process; nil when there is none (it never started,
	// was lost, or the executor does not say).
	ExitCode *int
	// Signal that ended it, if any ("SIGKILL").
	Signal string
	// Stopped: the executor stopped it because it was asked to (the stop
	// reached the process, or nothing ran yet).
	Stopped bool
	// Lost: the executor lost it (its node went down, the agent forgot it).
	Lost bool
	// Refused: it could not be started; the sentence says why.
	Refused string
	// Reason is the executor's sentence for a run that ended by itself
	// ("Ray: job failed"), in place of the one the exit code gives.
	Reason string
	// Note is added in parentheses to the reason of an end decided by
	// what was asked ("Ray did not confirm the stop within 1m").
	Note string
}

// outcome is the end a run comes to.
type outcome struct {
	state  string // completed, failed, canceled, timeout; queued: back in the queue
	cause  string // allocations.end_cause
	reason string
	// retry: a lost run requeued while its retries last.
	retry bool
}

// decide gives the outcome of j's run ending as e: what was asked of the
// job decides, strongest first (a cancel whatever happened; a time limit, a
// reclaim, a lease's release or expiry); a preemption decides when the stop
// reached the run (or it was lost meanwhile), else the run ended by itself;
// then a refused start fails, a lost run is requeued while its retries
// last, and an exit code of 0 completes.
func decide(j *Job, e RunEnd) outcome {
	asked := func(state, cause string) outcome {
		reason := j.StopReason
		if e.Note != "" {
			reason += " (" + e.Note + ")"
		}
		return outcome{state: state, cause: cause, reason: reason}
	}
	switch j.StopKind {
	case StopCancel:
		return asked(JobCanceled, CauseCanceled)
	case StopTimeLimit:
		return asked(JobTimeout, CauseTimeLimit)
	case StopReclaim:
		return asked(JobCanceled, CauseReclaimed)
	case StopExpire:
		return asked(JobCompleted, CauseExpired)
	case StopRelease:
		return asked(JobCompleted, CauseReleased)
	case StopPreempt:
		if e.Stopped || e.Lost {
			return asked(JobQueued, CausePreempted)
		}
	}
	switch {
	case e.Refused != "":
		return outcome{state: JobFailed, cause: CauseFailed, reason: e.Refused}
	case e.Lost:
		reason := cmp.Or(e.Reason, "lost on its node")
		if j.RetryCount < j.MaxRetries {
			return outcome{state: JobQueued, cause: CauseLost, retry: true,
				reason: fmt.Sprintf("%s; retry %d of %d", reason, j.RetryCount+1, j.MaxRetries)}
		}
		return outcome{state: JobFailed, cause: CauseLost, reason: reason}
	case e.ExitCode != nil && *e.ExitCode == 0:
		return outcome{state: JobCompleted, cause: CauseCompleted, reason: cmp.Or(e.Reason, "exited with code 0")}
	case e.Reason != "":
		return outcome{state: JobFailed, cause: CauseFailed, reason: e.Reason}
	case e.ExitCode == nil:
		return outcome{state: JobFailed, cause: CauseFailed, reason: "ended without an exit code"}
	case e.Signal != "":
		return outcome{state: JobFailed, cause: CauseFailed, reason: fmt.Sprintf("killed by %s (exit code %d)", e.Signal, *e.ExitCode)}
	}
	return outcome{state: JobFailed, cause: CauseFailed, reason: fmt.Sprintf("exited with code %d", *e.ExitCode)}
}

// Finish records that job j's run ended as e, in tx: the outcome is decided
// (decide), the job's GPUs are released, and it moves to its end (or back
// to the queue at its place). A job holding no GPUs (already ended, or
// requeued) answers ErrNoRun and is left as it is: the caller checked that
// e is about the job's current run.
func (lc *Lifecycle) Finish(ctx context.Context, tx *Tx, j *LockedJob, e RunEnd, now time.Time) error {
	if err := j.in(tx); err != nil {
		return err
	}
	return lc.finish(ctx, tx, j, e, now)
}

func (lc *Lifecycle) finish(ctx context.Context, tx *Tx, j *LockedJob, e RunEnd, now time.Time) error {
	if !j.holds() {
		return fmt.Errorf("models: end job %d (%s): %w", j.ID, j.State, ErrNoRun)
	}
	return lc.end(ctx, tx, j, decide(j.Job, e), e.ExitCode, now)
}

// end releases j's GPUs and moves it to o's state: through running to
// completed (a run that ended before its start was reported ran all the
// same), through preempted back to the queue (keeping its place, the GPU
// time it had, and counting the restart), or to failed, canceled or
// timeout (through running, as a completion).
func (lc *Lifecycle) end(ctx context.Context, tx *Tx, j *LockedJob, o outcome, exitCode *int, now time.Time) error {
	if _, err := release(ctx, tx, j.ID, o.reason, o.cause, now); err != nil {
		return err
	}
	var c change
	c.actor = j.StopBy
	if o.state != JobCanceled || j.StopKind != StopCancel {
		c.actor = nil
	}
	c.val("exit_code", exitCode)
	switch o.state {
	case JobQueued:
		if j.State == JobRunning {
			c.to(JobPreempted, o.reason)
			c.to(JobQueued, "back in the queue at its place")
		} else { // it had not started: straight back (the graph allows it)
			c.to(JobQueued, o.reason)
		}
		// Attained service is kept across runs (las, gittins).
		c.expr("attained_gpu_s", "attained_gpu_s + gpu_count * greatest(0, extract(epoch from (?::timestamptz - coalesce(started_at, scheduled_at, ?::timestamptz))))", now, now)
		c.val("preempted_at", now)
		c.expr("restart_count", "restart_count + 1")
		if o.retry {
			c.expr("retry_count", "retry_count + 1")
		}
		for _, col := range []string{"stop_kind", "stop_reason", "preempt_rule"} {
			c.expr(col, "''")
		}
		for _, col := range []string{"stop_by", "stop_requested_at", "preempted_for", "start_command_id", "lease_expires_at", "lease_confirmed_at"} {
			c.expr(col, "NULL")
		}
	case JobCompleted, JobTimeout:
		if j.State != JobRunning {
			if j.State == JobScheduled {
				c.to(JobAllocating, "taken by its executor")
			}
			c.to(JobRunning, "started")
		}
		c.to(o.state, o.reason)
	case JobFailed:
		c.to(JobFailed, o.reason)
		c.val("failure_reason", o.reason)
	case JobCanceled:
		c.to(JobCanceled, o.reason)
	default:
		return fmt.Errorf("models: end job %d: unknown outcome %q", j.ID, o.state)
	}
	if err := lc.apply(ctx, tx, j, c, now); err != nil {
		return err
	}
	return observeCompletion(ctx, tx, j.Job, o.cause, now)
}

// release ends every live allocation of a job, saying why, and returns how
// many it ended.
func release(ctx context.Context, tx *Tx, jobID int64, reason, cause string, now time.Time) (int, error) {
	res, err := tx.NewUpdate().Model((*Allocation)(nil)).
		Set("released_at = ?", now).Set("release_reason = ?", reason).Set("end_cause = ?", cause).
		Where("job_id = ?", jobID).Where("released_at IS NULL").Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: release job %d: %w", jobID, err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		if err := Signal(ctx, tx, ChannelGPUs, "release:"+strconv.FormatInt(jobID, 10)); err != nil {
			return 0, err
		}
	}
	return int(n), nil
}

// observeCompletion records what a job that has just completed teaches the
// scoring model: its measured runtime on its GPU model, beside the job types
// that shared its node. The periodic scoring_observe job folds it in. A lease
// that ran out its TTL was cut off rather than finished: its runtime says
// nothing reliable and is not recorded.
func observeCompletion(ctx context.Context, tx *Tx, j *Job, cause string, now time.Time) error {
	if j.State != JobCompleted || cause == CauseExpired {
		return nil
	}
	end := now
	if j.EndedAt != nil {
		end = *j.EndedAt
	}
	o, ok, err := CompletionObservation(ctx, tx, j, end)
	if err != nil || !ok {
		return err
	}
	if _, err := RecordObservation(ctx, tx, o, ObservationJob, &j.ID, now); err != nil {
		return fmt.Errorf("models: observe completion of job %d: %w", j.ID, err)
	}
	return nil
}
