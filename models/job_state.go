package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

// Job states (DESIGN.md, invariant 2): the API contract's names.
const (
	JobQueued     = apiclient.JobQueued
	JobScheduled  = apiclient.JobScheduled
	JobAllocating = apiclient.JobAllocating
	JobRunning    = apiclient.JobRunning
	JobCompleted  = apiclient.JobCompleted
	JobFailed     = apiclient.JobFailed
	JobCanceled   = apiclient.JobCanceled
	JobPreempted  = apiclient.JobPreempted
)

// JobStates lists every state in the order of a job's life.
var JobStates = []string{JobQueued, JobScheduled, JobAllocating, JobRunning, JobPreempted, JobCompleted, JobFailed, JobCanceled}

// jobMoves is the only graph a job's state may move along:
// queued → scheduled → allocating → running → completed | failed | canceled,
// queued → canceled, running → preempted → queued. A job that was scheduled
// or allocating may also be canceled, fail to start, or go back to the queue
// when its node is lost before it ran.
var jobMoves = map[string][]string{
	JobQueued:     {JobScheduled, JobCanceled},
	JobScheduled:  {JobAllocating, JobQueued, JobCanceled, JobFailed},
	JobAllocating: {JobRunning, JobQueued, JobCanceled, JobFailed},
	JobRunning:    {JobCompleted, JobFailed, JobCanceled, JobPreempted},
	JobPreempted:  {JobQueued, JobCanceled},
}

// ErrBadTransition is returned for a move the state graph does not allow.
var ErrBadTransition = errors.New("state transition not allowed")

// CanMove reports whether a job may move from one state to another.
func CanMove(from, to string) bool { return slices.Contains(jobMoves[from], to) }

// IsTerminal reports whether a job in state s will never move again.
func IsTerminal(s string) bool { return apiclient.IsTerminal(s) }

// JobEvent is one recorded move of a job's state.
type JobEvent struct {
	bun.BaseModel `bun:"table:job_events"`

	ID          int64     `bun:"id,pk,autoincrement" json:"id"`
	JobID       int64     `bun:"job_id,notnull" json:"job_id"`
	FromState   *string   `bun:"from_state" json:"from_state,omitempty"`
	ToState     string    `bun:"to_state,notnull" json:"to_state"`
	Reason      string    `bun:"reason,notnull" json:"reason"`
	ActorUserID *int64    `bun:"actor_user_id" json:"actor_user_id,omitempty"`
	CreatedAt   time.Time `bun:"created_at,notnull" json:"created_at"`
}

// MoveJob moves job id from its current state to `to`, stamping the matching
// timestamp and writing a job_events row in the same statement batch. Call it
// inside a transaction. The row is locked, so two movers serialize and the
// second sees the first's result.
func MoveJob(ctx context.Context, db bun.IDB, id int64, to, reason string, actor *int64, now time.Time) (*Job, error) {
	j := new(Job)
	if err := db.NewSelect().Model(j).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, fmt.Sprintf("move job %d", id))
	}
	if !CanMove(j.State, to) {
		return j, fmt.Errorf("models: move job %d from %s to %s: %w", id, j.State, to, ErrBadTransition)
	}
	from := j.State
	q := db.NewUpdate().Model(j).Set("state = ?", to).Set("updated_at = ?", now).WherePK().Returning("*")
	switch to {
	case JobScheduled:
		q = q.Set("scheduled_at = ?", now)
	case JobRunning:
		q = q.Set("started_at = ?", now)
	case JobCompleted, JobFailed, JobCanceled:
		q = q.Set("ended_at = ?", now)
	case JobQueued:
		q = q.Set("scheduled_at = NULL").Set("started_at = NULL")
	}
	if from == JobQueued {
		// The scheduler's word on a waiting job no longer applies.
		q = q.Set("queue_position = NULL").Set("pending_code = ''").Set("pending_reason = ''").Set("estimated_start_at = NULL")
	}
	if _, err := q.Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: move job %d to %s: %w", id, to, err)
	}
	ev := &JobEvent{JobID: id, FromState: &from, ToState: to, Reason: reason, ActorUserID: actor, CreatedAt: now}
	if _, err := db.NewInsert().Model(ev).Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: record move of job %d: %w", id, err)
	}
	if err := Notify(ctx, db, ChannelJobs, fmt.Sprintf("%d", id)); err != nil {
		return nil, err
	}
	// Notifications (issue 13): told in the same transaction as the move.
	if err := emitJobMove(ctx, db, j, reason, now); err != nil {
		return nil, err
	}
	return j, nil
}

// JobEvents returns a job's moves, oldest first.
func JobEvents(ctx context.Context, db bun.IDB, jobID int64) ([]JobEvent, error) {
	var out []JobEvent
	if err := db.NewSelect().Model(&out).Where("job_id = ?", jobID).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: events of job %d: %w", jobID, err)
	}
	return out, nil
}
