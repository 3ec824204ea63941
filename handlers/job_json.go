package handlers

import (
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// JobJSON is a job as the queue API shows it. Field names follow the
// orchestration design's JobQueueState (camelCase).
type JobJSON struct {
	ID                 int64             `json:"id"`
	ClientRef          string            `json:"client_ref,omitempty"`
	Name               string            `json:"name"`
	User               string            `json:"user"`
	State              string            `json:"state"`
	Priority           int               `json:"priority"`
	PriorityName       string            `json:"priority_name"`
	RequestedGPUs      int               `json:"requested_gpus"`
	GPUModel           string            `json:"gpu_model,omitempty"`
	MemoryGB           float64           `json:"memory_gb,omitempty"`
	AllowMultiNode     bool              `json:"allow_multi_node"`
	Preemptible        bool              `json:"preemptible"`
	Executor           string            `json:"executor"`
	Command            string            `json:"command,omitempty"`
	Workdir            string            `json:"workdir,omitempty"`
	Env                map[string]string `json:"env,omitempty"`
	JobType            string            `json:"job_type,omitempty"`
	EstimatedDurationS *int64            `json:"estimated_duration_seconds,omitempty"`
	Checkpoint         bool              `json:"checkpoint"`
	StopGraceS         int               `json:"stop_grace_seconds,omitempty"`
	AttainedGPUHours   float64           `json:"attained_gpu_hours"`
	QueuedAt           time.Time         `json:"queued_at"`
	ScheduledAt        *time.Time        `json:"scheduled_at,omitempty"`
	StartedAt          *time.Time        `json:"started_at,omitempty"`
	EndedAt            *time.Time        `json:"ended_at,omitempty"`
	ExpectedEndAt      *time.Time        `json:"expected_end_at,omitempty"`
	LeaseExpiresAt     *time.Time        `json:"lease_expires_at,omitempty"`
	LeaseTTLS          *int64            `json:"lease_ttl_s,omitempty"`        // a lease's TTL: from the confirmed grant, and each renewal
	LeaseConfirmedAt   *time.Time        `json:"lease_confirmed_at,omitempty"` // when the client learned of the grant
	ExitCode           *int              `json:"exit_code,omitempty"`
	FailureReason      string            `json:"failure_reason,omitempty"`
	// Pending jobs: the scheduler's latest word.
	Position           *int       `json:"position,omitempty"`
	Reason             string     `json:"reason,omitempty"`
	ReasonCode         string     `json:"reason_code,omitempty"`
	EstimatedStartTime *time.Time `json:"estimated_start_time,omitempty"`
	EstimatedWaitTime  *float64   `json:"estimated_wait_time,omitempty"` // seconds from now
}

// lastExit is the exit code of the job's last run that ended: none while a
// run is under way (a job requeued after a preemption keeps its previous
// run's until it starts again).
func lastExit(j *models.Job) *int {
	switch j.State {
	case models.JobScheduled, models.JobAllocating, models.JobRunning:
		return nil
	}
	return j.ExitCode
}

var priorityNames = map[int]string{1: "low", 2: "normal", 3: "high", 4: "critical"}

// jobJSON shapes j for the API; owner is the owner's email.
func jobJSON(j *models.Job, owner string, now time.Time) JobJSON {
	out := JobJSON{
		ID: j.ID, ClientRef: j.ClientRef, Name: j.Name, User: owner, State: j.State, Priority: j.Priority,
		PriorityName: priorityNames[j.Priority], RequestedGPUs: j.GPUCount, GPUModel: j.GPUModel,
		AllowMultiNode: j.AllowMultiNode, Preemptible: j.Preemptible, Executor: j.Executor, Command: j.Command,
		Workdir: j.Workdir, Env: j.Env, JobType: j.JobType, EstimatedDurationS: j.EstimatedDurationS,
		QueuedAt: j.SubmittedAt, ScheduledAt: j.ScheduledAt, StartedAt: j.StartedAt, EndedAt: j.EndedAt,
		LeaseExpiresAt: j.LeaseExpiresAt, LeaseTTLS: j.LeaseTTLS, LeaseConfirmedAt: j.LeaseConfirmedAt, ExitCode: j.ExitCode, FailureReason: j.FailureReason,
		Position: j.QueuePosition, Reason: j.PendingReason, ReasonCode: j.PendingCode, EstimatedStartTime: j.EstimatedStartAt,
		Checkpoint: j.Checkpoint, AttainedGPUHours: j.AttainedGPUS / 3600,
	}
	if j.Checkpoint {
		out.StopGraceS = j.StopGraceS
	}
	out.ExitCode = lastExit(j)
	if j.GPUMemoryMiB != nil {
		out.MemoryGB = float64(*j.GPUMemoryMiB) / 1024
	}
	if j.StartedAt != nil && j.EstimatedDurationS != nil {
		end := j.StartedAt.Add(time.Duration(*j.EstimatedDurationS) * time.Second)
		out.ExpectedEndAt = &end
	}
	if j.EstimatedStartAt != nil && j.State == models.JobQueued {
		w := max(j.EstimatedStartAt.Sub(now).Seconds(), 0)
		out.EstimatedWaitTime = &w
	}
	return out
}
