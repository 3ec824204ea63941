package api

// MemoryReading is what a node agent measured of one job on slots of a
// shared GPU: the GPU memory its processes use and its share's limit.
type MemoryReading struct {
	JobID    int64 `json:"job_id"`
	UsedMiB  int64 `json:"used_mib"`
	LimitMiB int64 `json:"limit_mib"`
}

// MemoryReadingsRequest is the body of POST /api/v1/nodes/{id}/memory:
// the jobs over their share, and those back under since the last report.
type MemoryReadingsRequest struct {
	Readings []MemoryReading `json:"readings"`
}

// What the server did about a reading (MemoryAction.Action).
const (
	MemoryUnder   = "under"    // within its share: any overrun is over
	MemoryWarned  = "warned"   // over: its owner was told (once per overrun)
	MemoryOver    = "over"     // still over, within the grace (or the policy only warns)
	MemoryStopped = "stopping" // over past the grace: the job is being stopped
	MemoryIgnored = "ignored"  // not a job holding a shared GPU on this node
)

// MemoryAction is the server's answer for one reading.
type MemoryAction struct {
	JobID  int64  `json:"job_id"`
	Action string `json:"action"`
}

// MemoryReadingsResponse answers each reading.
type MemoryReadingsResponse struct {
	Actions []MemoryAction `json:"actions"`
}
