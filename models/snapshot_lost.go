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

// loadLost fills s.Lost over the last LostWindow: GPU-seconds held by every
// allocation (the part inside the window), and GPU-seconds lost by the
// allocations a preemption released (their whole run, or, for a job that
// checkpoints, at most its stop grace: it keeps its progress).
func loadLost(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, now time.Time) error {
	since := now.Add(-LostWindow)
	var row struct {
		Held float64 `bun:"held"`
		Lost float64 `bun:"lost"`
	}
	err := db.NewRaw(`
SELECT coalesce(sum(greatest(0, extract(epoch FROM least(coalesce(a.released_at, ?0), ?0) - greatest(a.created_at, ?1)))), 0) AS held,
       coalesce(sum(CASE WHEN a.end_cause = 'preempted' AND a.released_at IS NOT NULL THEN
           CASE WHEN j.checkpoint THEN least(j.stop_grace_s, extract(epoch FROM a.released_at - a.created_at))
                ELSE extract(epoch FROM a.released_at - a.created_at) END
         ELSE 0 END), 0) AS lost
FROM allocations a JOIN jobs j ON j.id = a.job_id
WHERE coalesce(a.released_at, ?0) > ?1`, now, since).Scan(ctx, &row)
	if err != nil {
		return fmt.Errorf("models: snapshot lost to preemption: %w", err)
	}
	s.Lost = scheduler.PreemptionLoss{LostGPUSeconds: row.Lost, HeldGPUSeconds: row.Held}
	return nil
}
