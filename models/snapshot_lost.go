package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// LostWindow is how far back the GPU time lost to preemption is weighed
// against the GPU time held, for the attained-service policies' cap
// (scheduler.LASConfig.MaxLostShare).
const LostWindow = 7 * 24 * time.Hour

// loadLost fills s.Lost.LostGPUSeconds over the last LostWindow: the
// GPU-seconds lost by the allocations a preemption released (their whole run,
// or, for a job that checkpoints, at most its stop grace: it keeps its
// progress). The GPU time held beside it comes from the one reader of GPU
// time, with fair share (loadPrincipals), so it must run after it.
func loadLost(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, now time.Time) error {
	var lost float64
	err := db.NewRaw(`
SELECT coalesce(sum(CASE WHEN j.checkpoint THEN least(j.stop_grace_s, extract(epoch FROM a.released_at - a.created_at))
           ELSE extract(epoch FROM a.released_at - a.created_at) END), 0)
FROM allocations a JOIN jobs j ON j.id = a.job_id
WHERE a.end_cause = ? AND a.released_at > ?`, CausePreempted, now.Add(-LostWindow)).Scan(ctx, &lost)
	if err != nil {
		return fmt.Errorf("models: snapshot lost to preemption: %w", err)
	}
	s.Lost.LostGPUSeconds = lost
	return nil
}
