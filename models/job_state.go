package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Job states (DESIGN.md, invariant 2): the API contract's names.
const (
	JobQueued     = api.JobQueued
	JobScheduled  = api.JobScheduled
	JobAllocating = api.JobAllocating
	JobRunning    = api.JobRunning
	JobCompleted  = api.JobCompleted
	JobFailed     = api.JobFailed
	JobCanceled   = api.JobCanceled
	JobTimeout    = api.JobTimeout
	JobPreempted  = api.JobPreempted
)

// JobStates lists every state in the order of a job's life.
var JobStates = []string{JobQueued, JobScheduled, JobAllocating, JobRunning, JobPreempted, JobCompleted, JobFailed, JobCanceled, JobTimeout}

// jobMoves is the only graph a job's state may move along:
// queued → scheduled → allocating → running → completed | failed | canceled
// | timeout (it ran past its time limit), queued → canceled, running →
// preempted → queued. A job that was scheduled
// or allocating may also be canceled, fail to start, or go back to the queue
// when its node is lost before it ran.
var jobMoves = map[string][]string{
	JobQueued:     {JobScheduled, JobCanceled},
	JobScheduled:  {JobAllocating, JobQueued, JobCanceled, JobFailed},
	JobAllocating: {JobRunning, JobQueued, JobCanceled, JobFailed},
	JobRunning:    {JobCompleted, JobFailed, JobCanceled, JobTimeout, JobPreempted},
	JobPreempted:  {JobQueued, JobCanceled},
}

// ErrBadTransition is returned for a move the state graph does not allow.
var ErrBadTransition = errors.New("state transition not allowed")

// CanMove reports whether a job may move from one state to another.
func CanMove(from, to string) bool { return slices.Contains(jobMoves[from], to) }

// IsTerminal reports whether a job in state s will never move again.
func IsTerminal(s string) bool { return api.IsTerminal(s) }

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

// JobEvents returns a job's moves, oldest first.
func JobEvents(ctx context.Context, db bun.IDB, jobID int64) ([]JobEvent, error) {
	var out []JobEvent
	if err := db.NewSelect().Model(&out).Where("job_id = ?", jobID).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: events of job %d: %w", jobID, err)
	}
	return out, nil
}
