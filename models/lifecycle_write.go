package models

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// move is one step along the state graph, with the sentence the job's
// timeline shows for it.
type move struct{ to, reason string }

// change is what one lifecycle step writes on a job: its moves along the
// graph, who made them, and the columns set beside them.
type change struct {
	moves []move
	actor *int64
	set   []setCol
}

// setCol is "col = expr" with expr's arguments.
type setCol struct {
	col, expr string
	args      []any
}

// to adds a move.
func (c *change) to(state, reason string) { c.moves = append(c.moves, move{state, reason}) }

// val sets col to v.
func (c *change) val(col string, v any) { c.set = append(c.set, setCol{col, "?", []any{v}}) }

// expr sets col to a SQL expression.
func (c *change) expr(col, expr string, args ...any) {
	c.set = append(c.set, setCol{col, expr, args})
}

// notableStates are the states whose arrival the owner is told of.
var notableStates = []string{JobRunning, JobPreempted, JobCompleted, JobFailed, JobCanceled, JobTimeout}

// apply writes c on j in one UPDATE (the final state, the timestamps of the
// states it passes, the columns c sets) and one INSERT of a job_events row
// per move, signals the change, tells the owner of each notable state
// reached, and, when the job ended, settles the conditions of the jobs that
// wait for it (lifecycle_deps.go). Every move must be one the graph allows
// from the state before it. j is read back from the row.
func (lc *Lifecycle) apply(ctx context.Context, tx *Tx, j *LockedJob, c change, now time.Time) error {
	if err := j.in(tx); err != nil {
		return err
	}
	if len(c.moves) == 0 && len(c.set) == 0 {
		return nil
	}
	before := *j.Job
	state := j.State
	cols := []setCol{{"updated_at", "?", []any{now}}}
	put := func(col, expr string, args ...any) {
		if i := slices.IndexFunc(cols, func(s setCol) bool { return s.col == col }); i >= 0 {
			cols[i] = setCol{col, expr, args}
			return
		}
		cols = append(cols, setCol{col, expr, args})
	}
	for _, m := range c.moves {
		if !CanMove(state, m.to) {
			return fmt.Errorf("models: move job %d from %s to %s: %w", j.ID, state, m.to, ErrBadTransition)
		}
		if state == JobQueued { // the scheduler's word on a waiting job no longer applies
			put("queue_position", "NULL")
			put("pending_code", "''")
			put("pending_reason", "''")
			put("estimated_start_at", "NULL")
		}
		switch m.to {
		case JobScheduled:
			put("scheduled_at", "?", now)
		case JobRunning:
			put("started_at", "?", now)
		case JobCompleted, JobFailed, JobCanceled, JobTimeout:
			put("ended_at", "?", now)
		case JobQueued:
			put("scheduled_at", "NULL")
			put("started_at", "NULL")
		}
		state = m.to
	}
	if len(c.moves) > 0 {
		put("state", "?", state)
	}
	for _, s := range c.set {
		put(s.col, s.expr, s.args...)
	}
	var sql strings.Builder
	var args []any
	sql.WriteString("UPDATE jobs SET ")
	for i, s := range cols {
		if i > 0 {
			sql.WriteString(", ")
		}
		sql.WriteString(s.col + " = " + s.expr)
		args = append(args, s.args...)
	}
	sql.WriteString(" WHERE id = ? RETURNING *")
	args = append(args, j.ID)
	if err := tx.NewRaw(sql.String(), args...).Scan(ctx, j.Job); err != nil {
		return fmt.Errorf("models: write job %d: %w", j.ID, err)
	}
	if len(c.moves) == 0 {
		return nil
	}
	events := make([]JobEvent, len(c.moves))
	from := before.State
	for i, m := range c.moves {
		f := from
		events[i] = JobEvent{JobID: j.ID, FromState: &f, ToState: m.to, Reason: m.reason, ActorUserID: c.actor, CreatedAt: now}
		from = m.to
	}
	if _, err := tx.NewInsert().Model(&events).Exec(ctx); err != nil {
		return fmt.Errorf("models: record moves of job %d: %w", j.ID, err)
	}
	if err := Signal(ctx, tx, ChannelJobs, strconv.FormatInt(j.ID, 10)); err != nil {
		return err
	}
	for _, m := range c.moves {
		if !slices.Contains(notableStates, m.to) || j.ArrayJobID != nil && m.to != JobPreempted {
			continue // an array's tasks are told of together, at its end (taskEnded)
		}
		seen := *j.Job
		seen.State = m.to
		if m.to == JobPreempted { // told about the run that was stopped
			seen.StartedAt, seen.ScheduledAt = before.StartedAt, before.ScheduledAt
		}
		if err := emitJobMove(ctx, tx, &seen, m.reason, now); err != nil {
			return err
		}
	}
	if !IsTerminal(j.State) {
		return nil
	}
	if err := lc.settleDependents(ctx, tx, j.ID, j.State, now); err != nil { // the jobs that wait for its end
		return err
	}
	if j.ArrayJobID != nil {
		return lc.taskEnded(ctx, tx, j.Job, now)
	}
	return nil
}
