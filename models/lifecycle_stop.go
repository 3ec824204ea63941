package models

import (
	"context"
	"fmt"
	"time"
)

// StopKind says why a job is asked to end before it ends by itself.
type StopKind string

// Stop kinds, from the weakest to the strongest claim on the outcome.
const (
	StopNone StopKind = ""
	// StopPreempt: the scheduler needs the GPUs; the job goes back to the
	// queue at its place.
	StopPreempt StopKind = "preempt"
	// StopRelease: a lease's holder gave its GPUs back; it completes.
	StopRelease StopKind = "release"
	// StopExpire: a lease ran out its time; it completes.
	StopExpire StopKind = "expire"
	// StopReclaim: its GPUs sat idle past the idle policy's grace; it ends
	// canceled.
	StopReclaim StopKind = "reclaim"
	// StopTimeLimit: it ran past its time limit; it ends timeout.
	StopTimeLimit StopKind = "time_limit"
	// StopCancel: a person canceled it; it ends canceled whatever else was
	// asked or how its run ends.
	StopCancel StopKind = "cancel"
)

// stopRank orders the kinds: a stronger request replaces a weaker one in
// flight, never the reverse.
var stopRank = map[StopKind]int{StopNone: 0, StopPreempt: 1, StopRelease: 2, StopExpire: 3, StopReclaim: 4, StopTimeLimit: 5, StopCancel: 6}

// Preemption rules, the PreemptRule of a job stopped for another.
const (
	PreemptRulePriority    = "priority"     // a job of higher priority needs the GPUs
	PreemptRuleLASDemotion = "las_demotion" // a checkpointing job demoted by attained service
)

// StopRequest is what is asked of a job.
type StopRequest struct {
	Kind StopKind
	// Reason is the sentence the job's timeline and its owner see.
	Reason string
	// By is the person who asked; nil for the system.
	By *int64
	// ForJobID and Rule are a preemption's cause: the job it makes room
	// for and the rule that chose it.
	ForJobID int64
	Rule     string
	// Grace is the time between SIGTERM and SIGKILL; 0: the executor's
	// default (a checkpointing job being preempted gets its own stop grace).
	Grace time.Duration
}

// RequestStop asks job j to end as r says, in tx. A queued job asked to be
// canceled (or released) ends at once; a queued job is not preempted or
// reclaimed. A job holding GPUs records the request, unless one at least as
// strong is already in flight, and its executor is asked to stop it once
// (the first request): the outcome is decided when the run ends, by the
// strongest request (Finish). A lease, or a job whose start never reached
// its executor, ends at once. An ended job answers ErrJobEnded.
func (lc *Lifecycle) RequestStop(ctx context.Context, tx *Tx, j *LockedJob, r StopRequest, now time.Time) error {
	if err := j.in(tx); err != nil {
		return err
	}
	if _, ok := stopRank[r.Kind]; !ok || r.Kind == StopNone {
		return fmt.Errorf("models: stop job %d: unknown kind %q", j.ID, r.Kind)
	}
	switch {
	case IsTerminal(j.State):
		return fmt.Errorf("models: stop job %d (%s): %w", j.ID, j.State, ErrJobEnded)
	case j.State == JobQueued || j.State == JobPreempted:
		if r.Kind != StopCancel && r.Kind != StopRelease && r.Kind != StopExpire {
			return nil // nothing runs to stop
		}
		var c change
		c.actor = r.By
		c.to(JobCanceled, r.Reason)
		c.val("stop_kind", r.Kind)
		c.val("stop_reason", r.Reason)
		c.val("stop_by", r.By)
		c.val("stop_requested_at", now)
		return lc.apply(ctx, tx, j, c, now)
	}
	first := j.StopKind == StopNone
	if stopRank[r.Kind] > stopRank[j.StopKind] {
		var c change
		c.val("stop_kind", r.Kind)
		c.val("stop_reason", r.Reason)
		c.val("stop_by", r.By)
		c.val("stop_requested_at", now)
		if r.Kind == StopPreempt {
			c.val("preempted_for", r.ForJobID)
			c.val("preempt_rule", r.Rule)
		}
		if err := lc.apply(ctx, tx, j, c, now); err != nil {
			return err
		}
	}
	if j.Executor == ExecutorLease {
		return lc.finish(ctx, tx, j, RunEnd{Stopped: true}, now)
	}
	if !first {
		return nil // the executor was asked already; the outcome follows the strongest request
	}
	ex, ok := lc.Executors[j.Executor]
	if !ok {
		return lc.finish(ctx, tx, j, RunEnd{Stopped: true, Note: "this server has no " + j.Executor + " executor"}, now)
	}
	endNow, err := ex.Stop(ctx, tx, j.Job, stopGrace(j.Job, r), now)
	if err != nil {
		return fmt.Errorf("models: stop job %d on %s: %w", j.ID, j.Executor, err)
	}
	if endNow {
		return lc.finish(ctx, tx, j, RunEnd{Stopped: true}, now)
	}
	return nil
}

// stopGrace is the grace a stop gives: the request's, else the job's own
// stop grace at its time limit (as Slurm's KillWait) and when a
// checkpointing job is preempted (it saves its state), else 0 (the
// executor's default).
func stopGrace(j *Job, r StopRequest) time.Duration {
	if r.Grace > 0 {
		return r.Grace
	}
	if j.StopGraceS > 0 && (r.Kind == StopTimeLimit || r.Kind == StopPreempt && j.Checkpoint) {
		return time.Duration(j.StopGraceS) * time.Second
	}
	return 0
}

// Stopping reports whether a stop is in flight: the job holds GPUs and was
// asked to end.
func (j *Job) Stopping() bool {
	return j.StopKind != StopNone && (j.State == JobScheduled || j.State == JobAllocating || j.State == JobRunning)
}
