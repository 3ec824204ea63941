package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Executors a job may run on.
const (
	ExecutorLocal = "local" // the node agent starts the command
	ExecutorRay   = "ray"   // handed to a Ray cluster
	ExecutorNone  = "none"  // GPUs only: the user's own process runs (gpusched run, /acquire)
)

// Job is a request for GPUs, and what runs on them.
type Job struct {
	bun.BaseModel `bun:"table:jobs,alias:job"`

	ID                 int64             `bun:"id,pk,autoincrement" json:"id"`
	Name               string            `bun:"name,notnull" json:"name"`
	OwnerID            int64             `bun:"owner_id,notnull" json:"owner_id"`
	TeamID             *int64            `bun:"team_id" json:"team_id,omitempty"`
	State              string            `bun:"state,notnull" json:"state"`
	Command            string            `bun:"command,notnull" json:"command"`
	Workdir            string            `bun:"workdir,notnull" json:"workdir"`
	Env                map[string]string `bun:"env,type:jsonb,notnull" json:"env"`
	JobType            string            `bun:"job_type,notnull" json:"job_type"`
	GPUCount           int               `bun:"gpu_count,notnull" json:"gpu_count"`
	GPUMemoryMiB       *int64            `bun:"gpu_memory_mib" json:"gpu_memory_mib,omitempty"`
	GPUModel           string            `bun:"gpu_model,notnull" json:"gpu_model"`
	AllowMultiNode     bool              `bun:"allow_multi_node,notnull" json:"allow_multi_node"`
	Priority           int               `bun:"priority,notnull" json:"priority"`
	Preemptible        bool              `bun:"preemptible,notnull" json:"preemptible"`
	EstimatedDurationS *int64            `bun:"estimated_duration_s" json:"estimated_duration_s,omitempty"`
	Executor           string            `bun:"executor,notnull" json:"executor"`
	RetryCount         int               `bun:"retry_count,notnull" json:"retry_count"`
	MaxRetries         int               `bun:"max_retries,notnull" json:"max_retries"`
	ExitCode           *int              `bun:"exit_code" json:"exit_code,omitempty"`
	FailureReason      string            `bun:"failure_reason,notnull" json:"failure_reason,omitempty"`
	SubmittedAt        time.Time         `bun:"submitted_at,notnull" json:"submitted_at"`
	ScheduledAt        *time.Time        `bun:"scheduled_at" json:"scheduled_at,omitempty"`
	StartedAt          *time.Time        `bun:"started_at" json:"started_at,omitempty"`
	EndedAt            *time.Time        `bun:"ended_at" json:"ended_at,omitempty"`
	UpdatedAt          time.Time         `bun:"updated_at,notnull" json:"updated_at"`
}

// CreateJob inserts j as queued, with its first job_events row, and signals
// the change. Call it inside a transaction.
func CreateJob(ctx context.Context, db bun.IDB, j *Job, now time.Time) error {
	j.State = JobQueued
	j.SubmittedAt, j.UpdatedAt = now, now
	if j.Env == nil {
		j.Env = map[string]string{}
	}
	if j.Executor == "" {
		j.Executor = ExecutorLocal
	}
	if j.Priority == 0 {
		j.Priority = 2
	}
	if _, err := db.NewInsert().Model(j).Returning("*").Exec(ctx); err != nil {
		return fmt.Errorf("models: create job: %w", err)
	}
	ev := &JobEvent{JobID: j.ID, ToState: JobQueued, Reason: "submitted", ActorUserID: &j.OwnerID, CreatedAt: now}
	if _, err := db.NewInsert().Model(ev).Exec(ctx); err != nil {
		return fmt.Errorf("models: record submission of job %d: %w", j.ID, err)
	}
	return Notify(ctx, db, ChannelJobs, fmt.Sprintf("%d", j.ID))
}

// GetJob returns the job with id.
func GetJob(ctx context.Context, db bun.IDB, id int64) (*Job, error) {
	j := new(Job)
	err := db.NewSelect().Model(j).Where("id = ?", id).Scan(ctx)
	return j, notFound(err, fmt.Sprintf("get job %d", id))
}
