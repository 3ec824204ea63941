package api

// JobLog is a stretch of a job's output: GET /api/v1/jobs/{id}/logs.
type JobLog struct {
	JobID  int64  `json:"job_id"`
	Offset int64  `json:"offset"`      // where Data starts (later than asked when older output was dropped)
	Next   int64  `json:"next_offset"` // ask for this next
	Data   string `json:"data"`
	State  string `json:"state"`
	Done   bool   `json:"done"` // the job ended and all its output is here
	// Run is which of the job's Runs on nodes this is (1 = the first; a job
	// preempted or requeued has several); both 0 for Ray jobs.
	Run  int `json:"run,omitempty"`
	Runs int `json:"runs,omitempty"`
	// Part is which part of a multi-node run this is (its node rank, 0 =
	// the first node), asked with ?part=N; Parts how many the run has.
	Part  int `json:"part,omitempty"`
	Parts int `json:"parts,omitempty"`
}
