package api

// Queue is the body of GET /api/v1/queue (the orchestration design's
// JobQueueState, with the running jobs beside the queued ones).
type Queue struct {
	QueuedJobs  []Job      `json:"queued_jobs"`
	RunningJobs []Job      `json:"running_jobs"`
	Statistics  QueueStats `json:"statistics"`
}

// QueueStats is the short statistics block of the queue.
type QueueStats struct {
	TotalQueued     int     `json:"total_queued"`
	AverageWaitTime float64 `json:"average_wait_time"`
	QueueThroughput float64 `json:"queue_throughput"`
}
