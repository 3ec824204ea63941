package jobs

import (
	"context"
	"fmt"
	"slices"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// ReasonRayUnreachable is the pending code of a Ray job held in the queue
// while the Ray cluster does not answer.
const ReasonRayUnreachable = "ray_unreachable"

// holdRayJobs takes the queued Ray jobs out of the pass's snapshot while
// the Ray cluster does not answer, so that no GPUs are given to jobs that
// cannot be handed over. It returns their explanations, to add after the
// plan's; they start again at the first pass after Ray answers (the sync
// signals the change).
func holdRayJobs(ctx context.Context, tx *models.Tx, snap *scheduler.Snapshot) ([]scheduler.Explanation, error) {
	down, err := models.RayDisconnected(ctx, tx)
	if err != nil || !down {
		return nil, err
	}
	var ids []int64
	if err := tx.NewRaw(`SELECT id FROM jobs WHERE state = ? AND executor = ? ORDER BY submitted_at, id`,
		models.JobQueued, models.ExecutorRay).Scan(ctx, &ids); err != nil {
		return nil, fmt.Errorf("jobs: queued ray jobs: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	hold := make(map[int64]bool, len(ids))
	for _, id := range ids {
		hold[id] = true
	}
	snap.Pending = slices.DeleteFunc(snap.Pending, func(j scheduler.Job) bool { return hold[j.ID] })
	out := make([]scheduler.Explanation, len(ids))
	for i, id := range ids {
		out[i] = scheduler.Explanation{JobID: id, Code: ReasonRayUnreachable, Reason: models.RayUnreachable}
	}
	return out, nil
}

// appendHeld adds the held jobs' explanations after the plan's, queued
// behind every job that can start.
func appendHeld(plan *scheduler.Plan, held []scheduler.Explanation) {
	pos := 0
	for _, e := range plan.Pending {
		pos = max(pos, e.Position)
	}
	for i := range held {
		held[i].Position = pos + i + 1
	}
	plan.Pending = append(plan.Pending, held...)
}
