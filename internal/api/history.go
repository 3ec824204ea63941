package api

import "time"

// History is the body of GET /api/v1/history: ended jobs (completed,
// failed, canceled, timeout), the latest end first, one page of them.
type History struct {
	Jobs []HistoryJob `json:"jobs"`
	// NextCursor fetches the next page (older ends) as ?cursor=; absent on
	// the last page.
	NextCursor string `json:"next_cursor,omitempty"`
	Limit      int    `json:"limit"`
}

// HistoryJob is one ended job, as sacct shows it.
type HistoryJob struct {
	ID            int64  `json:"id"`
	Name          string `json:"name"`
	User          string `json:"user"`
	Team          string `json:"team,omitempty"`
	State         string `json:"state"`
	ExitCode      *int   `json:"exit_code,omitempty"`
	FailureReason string `json:"failure_reason,omitempty"`
	RequestedGPUs int    `json:"requested_gpus"`
	GPUModel      string `json:"gpu_model,omitempty"`
	Executor      string `json:"executor"`
	// GPUs are those of its last run, as node:index ("sim-node-1:4").
	GPUs        []string   `json:"gpus"`
	SubmittedAt time.Time  `json:"submitted_at"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	EndedAt     time.Time  `json:"ended_at"`
	// ElapsedSeconds is how long it held GPUs, its runs together;
	// GPUHours their GPU time (GPUs × time, as usage counts it).
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	GPUHours       float64 `json:"gpu_hours"`
	// Runs is how many times it held GPUs; Retries how many times it went
	// back to the queue (preempted, its node lost, retried).
	Runs    int `json:"runs"`
	Retries int `json:"retries"`
	// ArrayJobID and ArrayTaskID say which array it was a task of, and
	// which task ("1_19" in Slurm's words).
	ArrayJobID  *int64 `json:"array_job_id,omitempty"`
	ArrayTaskID *int   `json:"array_task_id,omitempty"`
}
