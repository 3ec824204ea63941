package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// QueueStats are the queue's figures: how much waits, how long waits last,
// how many jobs finish, how busy the GPUs are.
type QueueStats struct {
	Queued          int     `json:"total_queued"`
	Running         int     `json:"total_running"`
	QueuedGPUs      int     `json:"queued_gpus"`
	AverageWaitS    float64 `json:"average_wait_time"` // seconds, jobs started in the window
	MedianWaitS     float64 `json:"median_wait_time"`
	P90WaitS        float64 `json:"p90_wait_time"`
	P99WaitS        float64 `json:"p99_wait_time"`
	MaxWaitS        float64 `json:"max_wait_time"`
	StartedInWindow int     `json:"started_in_window"`
	ThroughputPerH  float64 `json:"queue_throughput"` // jobs finished per hour over the window
	GPUsTotal       int     `json:"gpus_total"`
	GPUsAllocated   int     `json:"gpus_allocated"`
	Utilization     float64 `json:"utilization"` // allocated / usable GPUs now
	WindowS         int64   `json:"window_seconds"`
}

// QueueStatistics computes the figures over the window ending at now.
func QueueStatistics(ctx context.Context, db bun.IDB, now time.Time, window time.Duration) (QueueStats, error) {
	st := QueueStats{WindowS: int64(window.Seconds())}
	since := now.Add(-window)
	err := db.NewRaw(`
SELECT
  count(*) FILTER (WHERE state = 'queued'),
  count(*) FILTER (WHERE state IN ('scheduled', 'allocating', 'running')),
  coalesce(sum(gpu_count) FILTER (WHERE state = 'queued'), 0)
FROM jobs WHERE state IN ('queued', 'scheduled', 'allocating', 'running')`).Scan(ctx, &st.Queued, &st.Running, &st.QueuedGPUs)
	if err != nil {
		return st, fmt.Errorf("models: queue counts: %w", err)
	}
	err = db.NewRaw(`
SELECT count(*),
  coalesce(avg(w), 0), coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY w), 0),
  coalesce(percentile_cont(0.9) WITHIN GROUP (ORDER BY w), 0), coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY w), 0),
  coalesce(max(w), 0)
FROM (SELECT extract(epoch FROM scheduled_at - submitted_at) AS w FROM jobs
      WHERE scheduled_at IS NOT NULL AND scheduled_at > ?) t`, since).
		Scan(ctx, &st.StartedInWindow, &st.AverageWaitS, &st.MedianWaitS, &st.P90WaitS, &st.P99WaitS, &st.MaxWaitS)
	if err != nil {
		return st, fmt.Errorf("models: wait times: %w", err)
	}
	var finished int
	if err := db.NewRaw(`SELECT count(*) FROM jobs WHERE ended_at > ? AND state = 'completed'`, since).Scan(ctx, &finished); err != nil {
		return st, fmt.Errorf("models: throughput: %w", err)
	}
	st.ThroughputPerH = float64(finished) / window.Hours()
	err = db.NewRaw(`
SELECT count(*) FILTER (WHERE g.health <> 'failed' AND NOT g.drained AND n.status = 'up' AND NOT n.drained),
       count(a.id)
FROM gpus g JOIN nodes n ON n.id = g.node_id
LEFT JOIN allocations a ON a.gpu_id = g.id AND a.released_at IS NULL
WHERE g.present`).Scan(ctx, &st.GPUsTotal, &st.GPUsAllocated)
	if err != nil {
		return st, fmt.Errorf("models: gpu counts: %w", err)
	}
	if st.GPUsTotal > 0 {
		st.Utilization = float64(st.GPUsAllocated) / float64(st.GPUsTotal)
	}
	return st, nil
}
