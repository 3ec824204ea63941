package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Executors a job may run on.
const (
	ExecutorLease = "lease" // GPUs only: the client runs its own process (gpu-allocate, gpusched run)
	ExecutorNode  = "node"  // the node agent starts the command
	ExecutorRay   = "ray"   // handed to a Ray cluster
)

// Executors lists every executor.
var Executors = []string{ExecutorLease, ExecutorNode, ExecutorRay}

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

	// The scheduler's latest word on a pending job.
	QueuePosition    *int       `bun:"queue_position" json:"queue_position,omitempty"`
	PendingCode      string     `bun:"pending_code,notnull" json:"pending_code,omitempty"`
	PendingReason    string     `bun:"pending_reason,notnull" json:"pending_reason,omitempty"`
	EstimatedStartAt *time.Time `bun:"estimated_start_at" json:"estimated_start_at,omitempty"`
	Score            *float64   `bun:"score" json:"score,omitempty"`
	ExplainedAt      *time.Time `bun:"explained_at" json:"explained_at,omitempty"`
	// LeaseExpiresAt ends a lease job's hold on its GPUs unless renewed.
	LeaseExpiresAt *time.Time `bun:"lease_expires_at" json:"lease_expires_at,omitempty"`
	// LeaseTTLS is how long a lease lasts once granted; nil: until released.
	LeaseTTLS *int64 `bun:"lease_ttl_s" json:"lease_ttl_s,omitempty"`
	// ClientRef is the caller's own name for the job (the design's job_id).
	ClientRef string `bun:"client_ref,notnull" json:"client_ref,omitempty"`
}

// CreateJob inserts j as queued together with its first job_events row and
// the change signal, in one statement (so it is atomic even outside a
// transaction, and costs one round trip on the submit path).
func CreateJob(ctx context.Context, db bun.IDB, j *Job, now time.Time) error {
	j.State = JobQueued
	j.SubmittedAt, j.UpdatedAt = now, now
	if j.Env == nil {
		j.Env = map[string]string{}
	}
	if j.Executor == "" {
		j.Executor = ExecutorNode
	}
	if j.Priority == 0 {
		j.Priority = 2
	}
	err := db.NewSelect().
		With("j", db.NewInsert().Model(j).Returning("*")).
		With("e", db.NewRaw(`INSERT INTO job_events (job_id, to_state, reason, actor_user_id, created_at)
			SELECT id, 'queued', 'submitted', owner_id, ? FROM j`, now)).
		With("n", db.NewRaw(`SELECT pg_notify(?, (SELECT id FROM j)::text)`, ChannelJobs)).
		TableExpr("j, n").ColumnExpr("j.*").
		Scan(ctx, j)
	if err != nil {
		return fmt.Errorf("models: create job: %w", err)
	}
	return nil
}

// GetJob returns the job with id.
func GetJob(ctx context.Context, db bun.IDB, id int64) (*Job, error) {
	j := new(Job)
	err := db.NewSelect().Model(j).Where("id = ?", id).Scan(ctx)
	return j, notFound(err, fmt.Sprintf("get job %d", id))
}
