package ray

// Job statuses Ray reports (ray.job_submission.JobStatus).
const (
	StatusPending   = "PENDING"
	StatusRunning   = "RUNNING"
	StatusStopped   = "STOPPED"
	StatusSucceeded = "SUCCEEDED"
	StatusFailed    = "FAILED"
)

// IsTerminal reports whether a job in Ray status s will not change again.
func IsTerminal(s string) bool {
	return s == StatusStopped || s == StatusSucceeded || s == StatusFailed
}

// SubmitRequest is the body of POST /api/jobs/ (Ray's JobSubmitRequest).
// Empty optional fields are left out, as Ray's own SDK does.
type SubmitRequest struct {
	Entrypoint string `json:"entrypoint"`
	// SubmissionID is ours (see SubmissionID), so that a retried submission
	// is refused by Ray as a duplicate instead of running a second job.
	SubmissionID        string             `json:"submission_id,omitempty"`
	RuntimeEnv          map[string]any     `json:"runtime_env,omitempty"`
	Metadata            map[string]string  `json:"metadata,omitempty"`
	EntrypointNumCPUs   float64            `json:"entrypoint_num_cpus,omitempty"`
	EntrypointNumGPUs   float64            `json:"entrypoint_num_gpus,omitempty"`
	EntrypointMemory    int64              `json:"entrypoint_memory,omitempty"`
	EntrypointResources map[string]float64 `json:"entrypoint_resources,omitempty"`
}

// JobDetails is what Ray answers for one job (GET /api/jobs/{id}, and each
// element of GET /api/jobs/). Times are milliseconds since the epoch.
type JobDetails struct {
	Type           string            `json:"type"`
	JobID          *string           `json:"job_id"`
	SubmissionID   string            `json:"submission_id"`
	Status         string            `json:"status"`
	Entrypoint     string            `json:"entrypoint"`
	Message        string            `json:"message,omitempty"`
	ErrorType      string            `json:"error_type,omitempty"`
	StartTime      int64             `json:"start_time,omitempty"`
	EndTime        int64             `json:"end_time,omitempty"`
	Metadata       map[string]string `json:"metadata,omitempty"`
	RuntimeEnv     map[string]any    `json:"runtime_env,omitempty"`
	DriverExitCode *int              `json:"driver_exit_code,omitempty"`
	DriverNodeID   string            `json:"driver_node_id,omitempty"`
	// EntrypointNumGPUs and EntrypointResources echo the submission.
	EntrypointNumCPUs   float64            `json:"entrypoint_num_cpus,omitempty"`
	EntrypointNumGPUs   float64            `json:"entrypoint_num_gpus,omitempty"`
	EntrypointMemory    int64              `json:"entrypoint_memory,omitempty"`
	EntrypointResources map[string]float64 `json:"entrypoint_resources,omitempty"`
}
