package jobs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// applyPlan carries out a plan inside the pass's transaction. Every state
// move goes through models.MoveJob (the one place the state machine is
// enforced), every allocation through models.Allocate (the partial unique
// index is the last line against double booking).
func applyPlan(ctx context.Context, d Deps, tx *models.Tx, plan scheduler.Plan, now time.Time) error {
	for _, st := range plan.Starts {
		if err := startJob(ctx, d, tx, st, now); err != nil {
			return err
		}
	}
	for _, p := range plan.Preemptions {
		if err := preemptJob(ctx, d, tx, p, now); err != nil {
			return err
		}
	}
	return nil
}

func startJob(ctx context.Context, d Deps, tx *models.Tx, st scheduler.Start, now time.Time) error {
	reason := "placed by the scheduler"
	if st.Backfilled {
		reason = "backfilled: starts now without delaying the job ahead"
	}
	job, err := models.MoveJob(ctx, tx, st.JobID, models.JobScheduled, reason, nil, now)
	if err != nil {
		return err
	}
	if _, err := models.Allocate(ctx, tx, job.ID, job.OwnerID, st.GPUIDs, now); err != nil {
		return err
	}
	if _, err := models.ConsumeHolds(ctx, tx, job, now); err != nil { // the owner's pre-warm holds are used now
		return err
	}
	return d.Executors.dispatch(ctx, d, tx, job, now)
}

func preemptJob(ctx context.Context, d Deps, tx *models.Tx, p scheduler.Preemption, now time.Time) error {
	job, err := models.GetJob(ctx, tx, p.JobID)
	if err != nil {
		return err
	}
	// The release reason starts "preempted for job N" (models.loadLost
	// counts the GPU time lost by it); the core's reasons already do.
	reason := p.Reason
	if prefix := fmt.Sprintf("preempted for job %d", p.ForJobID); !strings.HasPrefix(reason, prefix) {
		reason = prefix + ": " + reason
	}
	return d.Executors.stop(ctx, d, tx, job, models.JobPreempted, reason, now)
}
