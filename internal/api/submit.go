package api

// SubmitRequest is the body of POST /api/v1/queue/submit. Names follow the
// orchestration design (command, gpu_count, memory_gb, priority,
// estimated_duration).
type SubmitRequest struct {
	Command string `json:"command,omitempty"` // what to run; none for a lease
	// GPUCount is required (nil: not given), all at once (a gang).
	GPUCount *int     `json:"gpu_count,omitempty"`
	MemoryGB *float64 `json:"memory_gb,omitempty"` // at least, per GPU
	GPUModel string   `json:"gpu_model,omitempty"` // matches part of the model's name
	// GPUShare (0 < share ≤ 1) and/or GPUMemory ("20G", ParseMemoryMiB)
	// ask for part of one shared GPU instead of whole GPUs: the job gets
	// as many of the GPU's slots as hold both. gpu_count is then 1 or
	// absent; memory_gb and allow_multi_node do not apply.
	GPUShare  *float64 `json:"gpu_share,omitempty"`
	GPUMemory string   `json:"gpu_memory,omitempty"`
	Priority  Priority `json:"priority,omitempty"`
	// EstimatedDuration is how long the job is expected to run (for
	// backfill and ETAs); optional, and never enforced.
	EstimatedDuration Seconds `json:"estimated_duration,omitempty"`
	// TimeLimit is the job's limit, as Slurm's --time: a run past it gets
	// SIGTERM, its stop grace, then SIGKILL, and the job ends timeout.
	// None: the policy's default (time_limit.default), else no limit; over
	// the policy's maximum the submission is refused.
	TimeLimit      Seconds `json:"time_limit,omitempty"`
	Name           string  `json:"name,omitempty"`
	AllowMultiNode bool    `json:"allow_multi_node,omitempty"`
	// Nodes and GPUsPerNode are the job's shape, as Slurm's -N and
	// --gpus-per-node: exactly Nodes distinct nodes with GPUsPerNode GPUs
	// each. With both, gpu_count (if given) must be their product; with
	// nodes alone gpu_count must divide evenly among them.
	Nodes       int               `json:"nodes,omitempty"`
	GPUsPerNode int               `json:"gpus_per_node,omitempty"`
	Preemptible *bool             `json:"preemptible,omitempty"` // nil: yes, but a lease's is no
	Executor    string            `json:"executor,omitempty"`    // node, lease or ray; "": the server's default
	Workdir     string            `json:"workdir,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	JobType     string            `json:"job_type,omitempty"`
	MaxRetries  int               `json:"max_retries,omitempty"`
	// Checkpoint: the job saves its state on SIGTERM and resumes from it
	// (GPUSCHED_RESTART_COUNT > 0), so an attained-service policy may
	// preempt it. StopGrace is its time between SIGTERM and SIGKILL when
	// it is preempted (checkpointing jobs) or reaches its time limit (at
	// most 1 h, default 60 s).
	Checkpoint bool    `json:"checkpoint,omitempty"`
	StopGrace  Seconds `json:"stop_grace,omitempty"`
	// After lists the conditions the job waits for, all of them, as
	// Slurm's --dependency: [{"kind": "ok", "job_id": 12}, {"kind":
	// "singleton"}]. A condition on a job that already ended is met at
	// once, or refused when it can never be (afterok on a failed job); one
	// that later can never be met cancels the job.
	After []Dependency `json:"after,omitempty"`
	// Array queues the job as an array of tasks, as Slurm's --array:
	// "0-99%8" (ids, ranges, steps "0-15:4", then %N: at most N tasks
	// running at once; see ParseArray). Each task is a job of its own that
	// sees GPUSCHED_ARRAY_TASK_ID; the answer is the first task, whose id
	// is the array's, with the array's summary.
	Array string `json:"array,omitempty"`
}
