package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
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

	ID           int64             `bun:"id,pk,autoincrement" json:"id"`
	Name         string            `bun:"name,notnull" json:"name"`
	OwnerID      int64             `bun:"owner_id,notnull" json:"owner_id"`
	TeamID       *int64            `bun:"team_id" json:"team_id,omitempty"`
	State        string            `bun:"state,notnull" json:"state"`
	Command      string            `bun:"command,notnull" json:"command"`
	Workdir      string            `bun:"workdir,notnull" json:"workdir"`
	Env          map[string]string `bun:"env,type:jsonb,notnull" json:"env"`
	JobType      string            `bun:"job_type,notnull" json:"job_type"`
	GPUCount     int               `bun:"gpu_count,notnull" json:"gpu_count"`
	GPUMemoryMiB *int64            `bun:"gpu_memory_mib" json:"gpu_memory_mib,omitempty"`
	GPUModel     string            `bun:"gpu_model,notnull" json:"gpu_model"`
	// GPUShare (0 < share ≤ 1) or ShareMemoryMiB asks for part of one
	// shared GPU (GPUCount is then 1): the slots that hold them
	// (scheduler.SlotsNeeded). 0, 0: whole GPUs or MIG devices.
	GPUShare       float64 `bun:"gpu_share,notnull" json:"gpu_share,omitempty"`
	ShareMemoryMiB int64   `bun:"share_memory_mib,notnull" json:"share_memory_mib,omitempty"`
	AllowMultiNode bool    `bun:"allow_multi_node,notnull" json:"allow_multi_node"`
	// Nodes is the job's shape: above 1, exactly this many nodes with
	// GPUCount/Nodes GPUs each (scheduler.Job.Nodes); 0 none.
	Nodes              int    `bun:"nodes,notnull" json:"nodes,omitempty"`
	Priority           int    `bun:"priority,notnull" json:"priority"`
	Preemptible        bool   `bun:"preemptible,notnull" json:"preemptible"`
	EstimatedDurationS *int64 `bun:"estimated_duration_s" json:"estimated_duration_s,omitempty"`
	// TimeLimitS is the job's time limit, as Slurm's: a run past it is
	// stopped (SIGTERM, its stop grace, SIGKILL) and the job ends timeout;
	// nil: no limit.
	TimeLimitS *int64 `bun:"time_limit_s" json:"time_limit_s,omitempty"`
	// WaitsFor is the dependencies a queued job still waits for, as
	// "kind:id,…" in id order ('' none; job_dependencies holds them all).
	WaitsFor string `bun:"waits_for,notnull" json:"waits_for,omitempty"`
	// ArrayJobID and ArrayTaskID make the job a task of an array (its
	// first task's id, job_arrays) with its task id; nil: not a task.
	ArrayJobID  *int64 `bun:"array_job_id" json:"array_job_id,omitempty"`
	ArrayTaskID *int   `bun:"array_task_id" json:"array_task_id,omitempty"`
	// Checkpoint-aware preemption (migration 0013): the job saves and
	// resumes; StopGraceS is its time between SIGTERM and SIGKILL;
	// AttainedGPUS the GPU-seconds of its earlier runs; PreemptedAt its
	// last preemption.
	Checkpoint    bool       `bun:"checkpoint,notnull" json:"checkpoint"`
	StopGraceS    int        `bun:"stop_grace_s,notnull" json:"stop_grace_s"`
	AttainedGPUS  float64    `bun:"attained_gpu_s,notnull" json:"attained_gpu_s"`
	PreemptedAt   *time.Time `bun:"preempted_at" json:"preempted_at,omitempty"`
	Executor      string     `bun:"executor,notnull" json:"executor"`
	RetryCount    int        `bun:"retry_count,notnull" json:"retry_count"`
	MaxRetries    int        `bun:"max_retries,notnull" json:"max_retries"`
	ExitCode      *int       `bun:"exit_code" json:"exit_code,omitempty"`
	FailureReason string     `bun:"failure_reason,notnull" json:"failure_reason,omitempty"`
	SubmittedAt   time.Time  `bun:"submitted_at,notnull" json:"submitted_at"`
	ScheduledAt   *time.Time `bun:"scheduled_at" json:"scheduled_at,omitempty"`
	StartedAt     *time.Time `bun:"started_at" json:"started_at,omitempty"`
	EndedAt       *time.Time `bun:"ended_at" json:"ended_at,omitempty"`
	UpdatedAt     time.Time  `bun:"updated_at,notnull" json:"updated_at"`

	// The scheduler's latest word on a pending job.
	QueuePosition    *int       `bun:"queue_position" json:"queue_position,omitempty"`
	PendingCode      string     `bun:"pending_code,notnull" json:"pending_code,omitempty"`
	PendingReason    string     `bun:"pending_reason,notnull" json:"pending_reason,omitempty"`
	EstimatedStartAt *time.Time `bun:"estimated_start_at" json:"estimated_start_at,omitempty"`
	Score            *float64   `bun:"score" json:"score,omitempty"`
	ExplainedAt      *time.Time `bun:"explained_at" json:"explained_at,omitempty"`
	// LeaseExpiresAt ends a lease job's hold on its GPUs unless renewed.
	LeaseExpiresAt *time.Time `bun:"lease_expires_at" json:"lease_expires_at,omitempty"`
	// LeaseTTLS is how long a lease lasts once granted and confirmed, and
	// on each renewal; nil: the policy's default TTL, set at the grant.
	LeaseTTLS *int64 `bun:"lease_ttl_s" json:"lease_ttl_s,omitempty"`
	// LeaseConfirmedAt is when the client learned of the grant; a granted
	// lease not confirmed runs out after the policy's confirm_within.
	LeaseConfirmedAt *time.Time `bun:"lease_confirmed_at" json:"lease_confirmed_at,omitempty"`
	// LeasePID is the local process that holds a lease made through a node
	// agent's /acquire, which the agent watches; LeasePIDStart is its start
	// time (clock ticks since boot; 0: unknown), against PID reuse.
	LeasePID      *int   `bun:"lease_pid" json:"lease_pid,omitempty"`
	LeasePIDStart *int64 `bun:"lease_pid_start" json:"lease_pid_start,omitempty"`
	// ClientRef is the caller's own name for the job (the design's job_id).
	ClientRef string `bun:"client_ref,notnull" json:"client_ref,omitempty"`
	// NodeID pins the job to one node (a lease asked for through that
	// node's local /acquire); nil: any node.
	NodeID *int64 `bun:"node_id" json:"node_id,omitempty"`
	// What was asked of the job while it held GPUs (lifecycle_stop.go):
	// the stop's kind, its sentence, who asked and when. StopKind "" means
	// nothing was asked; a stop in flight is a StopKind on a job that still
	// holds GPUs.
	StopKind        StopKind   `bun:"stop_kind,notnull" json:"stop_kind,omitempty"`
	StopReason      string     `bun:"stop_reason,notnull" json:"stop_reason,omitempty"`
	StopBy          *int64     `bun:"stop_by" json:"stop_by,omitempty"`
	StopRequestedAt *time.Time `bun:"stop_requested_at" json:"stop_requested_at,omitempty"`
	// PreemptedFor and PreemptRule are a preemption's cause: the job it
	// made room for and the rule that chose it (PreemptRule*).
	PreemptedFor *int64 `bun:"preempted_for" json:"preempted_for,omitempty"`
	PreemptRule  string `bun:"preempt_rule,notnull" json:"preempt_rule,omitempty"`
	// RestartCount is how many times the job went back to the queue.
	RestartCount int `bun:"restart_count,notnull" json:"restart_count"`
	// StartCommandID is the node executor's current run: its start command.
	StartCommandID *int64 `bun:"start_command_id" json:"-"`
	// SchedXID is the transaction that last changed what the scheduler
	// decides on about the job; set by a trigger (migration 14), read by
	// the in-memory snapshot (snapshot_cache.go) only.
	SchedXID string `bun:"sched_xid,scanonly" json:"-"`
	// SubmitToken is the server's own name for the row, set before its
	// insert (newSubmitToken) and kept across retries of it, so that an
	// insert whose answer was lost is completed, not repeated
	// (ResumeJobs); "" for jobs from before it.
	SubmitToken string `bun:"submit_token,scanonly" json:"-"`
}

// Querier runs a parameterised query: a *pgxpool.Pool, or a Tx's PGX().
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// createJobSQL inserts a queued job and its first job_events row in one
// statement. It is parameterised (not built by bun) so that pgx prepares it
// once per connection: submission is the hottest write path.
const createJobSQL = `
WITH j AS (
    INSERT INTO jobs (name, owner_id, team_id, state, command, workdir, env, job_type, gpu_count, gpu_memory_mib,
        gpu_model, allow_multi_node, priority, preemptible, estimated_duration_s, executor, max_retries,
        submitted_at, updated_at, lease_ttl_s, client_ref, checkpoint, stop_grace_s, submit_token, time_limit_s,
        waits_for, gpu_share, share_memory_mib, nodes)
    VALUES ($1, $2, $3, 'queued', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17, $18, $19, $20, $21, $22, $23, $24,
        $25, $26, $27)
    RETURNING id
), e AS (
    INSERT INTO job_events (job_id, to_state, reason, actor_user_id, created_at)
    SELECT id, 'queued', 'submitted', $2, $17 FROM j
)
SELECT id FROM j`

// CreateJob inserts j as queued together with its first job_events row in
// one statement (atomic even outside a transaction, one round trip). It
// sends no NOTIFY: the caller signals the change after the commit through a
// Signaler, since a NOTIFY inside the transaction would serialise every
// submission's commit.
func CreateJob(ctx context.Context, q Querier, j *Job, now time.Time) error {
	env, err := prepareNewJob(j, now)
	if err != nil {
		return fmt.Errorf("models: create job: %w", err)
	}
	err = q.QueryRow(ctx, createJobSQL, j.Name, j.OwnerID, j.TeamID, j.Command, j.Workdir, string(env), j.JobType,
		j.GPUCount, j.GPUMemoryMiB, j.GPUModel, j.AllowMultiNode, j.Priority, j.Preemptible, j.EstimatedDurationS,
		j.Executor, j.MaxRetries, now, j.LeaseTTLS, j.ClientRef, j.Checkpoint, j.StopGraceS, j.SubmitToken, j.TimeLimitS,
		j.WaitsFor, j.GPUShare, j.ShareMemoryMiB, j.Nodes).Scan(&j.ID)
	if err != nil {
		return fmt.Errorf("models: create job: %w", err)
	}
	return nil
}

// prepareNewJob sets what a new job starts with (queued, submitted now, the
// defaults of its empty fields) and returns its environment as JSON.
func prepareNewJob(j *Job, now time.Time) ([]byte, error) {
	j.State = JobQueued
	j.SubmittedAt, j.UpdatedAt = now, now
	if j.SubmitToken == "" {
		j.SubmitToken = newSubmitToken(now)
	}
	if j.Env == nil {
		j.Env = map[string]string{}
	}
	if j.Executor == "" {
		j.Executor = ExecutorNode
	}
	if j.Priority == 0 {
		j.Priority = 2
	}
	if j.StopGraceS == 0 {
		j.StopGraceS = int(scheduler.DefaultStopGrace.Seconds())
	}
	return json.Marshal(j.Env)
}

// GetJob returns the job with id.
func GetJob(ctx context.Context, db bun.IDB, id int64) (*Job, error) {
	j := new(Job)
	err := db.NewSelect().Model(j).Where("id = ?", id).Scan(ctx)
	return j, notFound(err, fmt.Sprintf("get job %d", id))
}

// LeaseByClientRef returns owner's lease named ref by its client (the
// design's job_id): the live one if any, else the newest.
func LeaseByClientRef(ctx context.Context, db bun.IDB, ownerID int64, ref string) (*Job, error) {
	j := new(Job)
	err := db.NewSelect().Model(j).Where("owner_id = ?", ownerID).Where("client_ref = ?", ref).
		OrderExpr("state IN ('running', 'queued') DESC, id DESC").Limit(1).Scan(ctx)
	return j, notFound(err, "lease "+ref)
}
