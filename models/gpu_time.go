package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// heldQuery reads the allocations that held a GPU at some time in [from,
// to), one row per attempt of a job: an attempt's allocations are created
// together and released together, so they are counted once with their
// number of GPUs (grouped before the join: the join then sees one row per
// attempt, not per GPU), each GPU weighed by its fraction of a GPU (a MIG
// device's slices over its parent's; 1 for a whole GPU). The team is the
// job's, else its owner's; 0 when neither. The job's type says its kind
// (UsageKindOf).
const heldQuery = `
SELECT a.user_id, coalesce(j.team_id, u.team_id, 0), a.gpus, a.fraction, a.created_at, a.released_at, j.job_type
FROM (SELECT a.job_id, a.user_id, a.created_at, a.released_at, count(*) AS gpus, avg(g.fraction) AS fraction
      FROM allocations a JOIN gpus g ON g.id = a.gpu_id
      WHERE a.created_at < ? AND (a.released_at IS NULL OR a.released_at > ?)
      GROUP BY a.job_id, a.user_id, a.created_at, a.released_at) a
JOIN jobs j ON j.id = a.job_id JOIN users u ON u.id = a.user_id`

// readHeld is the one reader of GPU time: every attempt's allocations that
// held GPUs at some time in [from, to), in no particular order, as
// intervals the scheduler's arithmetic counts (scheduler.GPUTime). A zero
// from reads from the start.
func readHeld(ctx context.Context, db bun.IDB, from, to time.Time) ([]scheduler.Held, error) {
	r, closeRows, err := query(ctx, db, heldQuery, to, from)
	if err != nil {
		return nil, fmt.Errorf("models: GPU time from %s to %s: %w", from.Format(time.RFC3339), to.Format(time.RFC3339), err)
	}
	defer closeRows()
	var out []scheduler.Held
	for r.Next() {
		var (
			h       scheduler.Held
			end     *time.Time
			jobType string
		)
		if err := r.Scan(&h.UserID, &h.TeamID, &h.GPUs, &h.Fraction, &h.Start, &end, &jobType); err != nil {
			return nil, fmt.Errorf("models: GPU time: %w", err)
		}
		if end != nil {
			h.End = *end
		}
		h.Kind = UsageKindOf(jobType)
		out = append(out, h)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("models: GPU time: %w", err)
	}
	return out, nil
}

// usageHorizon is how many half-lives back fair share reads GPU time; older
// use weighs less than 1/32 and is left out.
const usageHorizon = 5

// fairShareWindow is the GPU time fair share counts at now: decayed with
// halfLife, read back usageHorizon half-lives (all of it without decay).
func fairShareWindow(now time.Time, halfLife time.Duration) scheduler.UsageWindow {
	w := scheduler.UsageWindow{Now: now, HalfLife: halfLife}
	if halfLife > 0 {
		w.From = now.Add(-usageHorizon * halfLife)
	}
	return w
}
