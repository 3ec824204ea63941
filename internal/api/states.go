package api

// Job states as the API shows them (DESIGN.md, invariant 2). The server's
// models use the same names.
const (
	JobQueued     = "queued"
	JobScheduled  = "scheduled"
	JobAllocating = "allocating"
	JobRunning    = "running"
	JobCompleted  = "completed"
	JobFailed     = "failed"
	JobCanceled   = "canceled"
	// JobTimeout: the job ran past its time limit and was stopped
	// (SIGTERM, its stop grace, then SIGKILL), as Slurm's TIMEOUT.
	JobTimeout   = "timeout"
	JobPreempted = "preempted"
)

// IsTerminal reports whether a job in state s will never move again.
func IsTerminal(s string) bool {
	return s == JobCompleted || s == JobFailed || s == JobCanceled || s == JobTimeout
}
