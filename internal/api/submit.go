package api

// SubmitRequest is the body of POST /api/v1/queue/submit. Names follow the
// orchestration design (command, gpu_count, memory_gb, priority,
// estimated_duration).
type SubmitRequest struct {
	Command string `json:"command,omitempty"` // what to run; none for a lease
	// GPUCount is required (nil: not given), all at once (a gang).
	GPUCount          *int              `json:"gpu_count,omitempty"`
	MemoryGB          *float64          `json:"memory_gb,omitempty"` // at least, per GPU
	GPUModel          string            `json:"gpu_model,omitempty"` // matches part of the model's name
	Priority          Priority          `json:"priority,omitempty"`
	EstimatedDuration Seconds           `json:"estimated_duration,omitempty"`
	Name              string            `json:"name,omitempty"`
	AllowMultiNode    bool              `json:"allow_multi_node,omitempty"`
	Preemptible       *bool             `json:"preemptible,omitempty"` // nil: yes, but a lease's is no
	Executor          string            `json:"executor,omitempty"`    // node, lease or ray; "": the server's default
	Workdir           string            `json:"workdir,omitempty"`
	Env               map[string]string `json:"env,omitempty"`
	JobType           string            `json:"job_type,omitempty"`
	MaxRetries        int               `json:"max_retries,omitempty"`
	// Checkpoint: the job saves its state on SIGTERM and resumes from it
	// (GPUSCHED_RESTART_COUNT > 0), so an attained-service policy may
	// preempt it; StopGrace is its time to save (at most 1 h, default 60 s).
	Checkpoint bool    `json:"checkpoint,omitempty"`
	StopGrace  Seconds `json:"stop_grace,omitempty"`
}
