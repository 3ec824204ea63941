package api

import "time"

// Job is a job as the API shows it: the answer of a submission, a cancel,
// a priority change, a lease's release or renewal, and each job of the
// queue (GET /api/v1/jobs/{id} adds its timeline and GPUs).
type Job struct {
	ID            int64   `json:"id"`
	ClientRef     string  `json:"client_ref,omitempty"`
	Name          string  `json:"name"`
	User          string  `json:"user"`
	State         string  `json:"state"` // see the Job… state constants
	Priority      int     `json:"priority"`
	PriorityName  string  `json:"priority_name"`
	RequestedGPUs int     `json:"requested_gpus"`
	GPUModel      string  `json:"gpu_model,omitempty"`
	MemoryGB      float64 `json:"memory_gb,omitempty"`
	// GPUShare and GPUMemoryMiB are what a share job asked of a shared GPU.
	GPUShare       float64 `json:"gpu_share,omitempty"`
	GPUMemoryMiB   int64   `json:"gpu_memory_mib,omitempty"`
	AllowMultiNode bool    `json:"allow_multi_node"`
	// Nodes and GPUsPerNode are a shaped job's shape: exactly Nodes nodes
	// with GPUsPerNode GPUs on each (none: 0).
	Nodes              int               `json:"nodes,omitempty"`
	GPUsPerNode        int               `json:"gpus_per_node,omitempty"`
	Preemptible        bool              `json:"preemptible"`
	Executor           string            `json:"executor"`
	Command            string            `json:"command,omitempty"`
	Workdir            string            `json:"workdir,omitempty"`
	Env                map[string]string `json:"env,omitempty"`
	JobType            string            `json:"job_type,omitempty"`
	EstimatedDurationS *int64            `json:"estimated_duration_seconds,omitempty"`
	// TimeLimitS is the job's time limit (none: unlimited); a run past it
	// ends the job timeout.
	TimeLimitS       *int64     `json:"time_limit_seconds,omitempty"`
	Checkpoint       bool       `json:"checkpoint"`
	StopGraceS       int        `json:"stop_grace_seconds,omitempty"`
	AttainedGPUHours float64    `json:"attained_gpu_hours"`
	QueuedAt         time.Time  `json:"queued_at"`
	ScheduledAt      *time.Time `json:"scheduled_at,omitempty"`
	StartedAt        *time.Time `json:"started_at,omitempty"`
	EndedAt          *time.Time `json:"ended_at,omitempty"`
	ExpectedEndAt    *time.Time `json:"expected_end_at,omitempty"`
	// A lease's time: when it runs out unless renewed, its TTL (from the
	// confirmed grant, and each renewal), and when its client learned of
	// the grant.
	LeaseExpiresAt   *time.Time `json:"lease_expires_at,omitempty"`
	LeaseTTLS        *int64     `json:"lease_ttl_s,omitempty"`
	LeaseConfirmedAt *time.Time `json:"lease_confirmed_at,omitempty"`
	ExitCode         *int       `json:"exit_code,omitempty"` // of the last run that ended
	FailureReason    string     `json:"failure_reason,omitempty"`
	// After lists the conditions the job was submitted with, each with
	// whether it is met (WaitsFor: those it still waits for). Only the
	// job's own answer and GET /api/v1/jobs/{id} carry After.
	After    []DependencyState `json:"after,omitempty"`
	WaitsFor []Dependency      `json:"waits_for,omitempty"`
	// A task of an array: the array's id (its first task's) and the
	// task's id; Array summarises the array (in the queue, one entry
	// stands for the array's live tasks; in a submission's answer).
	ArrayJobID  *int64        `json:"array_job_id,omitempty"`
	ArrayTaskID *int          `json:"array_task_id,omitempty"`
	Array       *ArraySummary `json:"array,omitempty"`
	// Pending jobs: the scheduler's latest word.
	Position           *int       `json:"position,omitempty"`
	Reason             string     `json:"reason,omitempty"`
	ReasonCode         string     `json:"reason_code,omitempty"`
	EstimatedStartTime *time.Time `json:"estimated_start_time,omitempty"`
	EstimatedWaitTime  *float64   `json:"estimated_wait_time,omitempty"` // seconds from now
}

// PriorityRequest is the body of PATCH /api/v1/queue/{id}/priority.
type PriorityRequest struct {
	Priority Priority `json:"priority"`
}

// DependencyState is a condition of a job and whether it is met.
type DependencyState struct {
	Dependency
	Met bool `json:"met"`
}

// ArraySummary is an array of tasks (Slurm's --array) at a glance.
type ArraySummary struct {
	ID         int64  `json:"id"`   // the array's id: its first task's job id
	Spec       string `json:"spec"` // its tasks as submitted, "0-99%8"
	TaskCount  int    `json:"task_count"`
	MaxRunning int    `json:"max_running,omitempty"` // %N; 0: no limit
	// States counts its tasks by state ({"running": 8, "queued": 90,
	// "completed": 2}).
	States map[string]int `json:"states"`
}
