package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// applyPlan carries out a plan inside the pass's transaction, through the
// job lifecycle: the rows of every job the plan names are locked at once (in
// id order), each start places its job on its GPUs and hands it to its
// executor (a node's start command is written here, in the pass's
// transaction; a lease is granted under the policy's lease rules), each
// preemption asks its job to stop. A job that moved since the pass read it
// (canceled meanwhile, ended) is left alone: the plan no longer applies to
// it, and the rest of the plan does.
func applyPlan(ctx context.Context, d Deps, tx *models.Tx, s *scheduler.Snapshot, plan scheduler.Plan, leases scheduler.LeasePolicy, now time.Time) error {
	ids := make([]int64, 0, len(plan.Starts)+len(plan.Preemptions))
	for _, st := range plan.Starts {
		ids = append(ids, st.JobID)
	}
	for _, p := range plan.Preemptions {
		ids = append(ids, p.JobID)
	}
	locked, err := d.Lifecycle.LockMany(ctx, tx, ids)
	if err != nil {
		return err
	}
	byID := make(map[int64]*models.LockedJob, len(locked))
	for _, j := range locked {
		byID[j.ID] = j
	}
	holders := holdOwners(s)
	for _, st := range plan.Starts {
		j := byID[st.JobID]
		if j == nil {
			continue
		}
		reason := "placed by the scheduler"
		if st.Backfilled {
			reason = "backfilled: starts now without delaying the job ahead"
		}
		err := d.Lifecycle.Place(ctx, tx, j, models.Placement{GPUIDs: st.GPUIDs, Reason: reason, ConsumeHolds: holders[j.OwnerID], Leases: leases}, now)
		if errors.Is(err, models.ErrNotQueued) {
			d.Logger.Debug("pass: job moved since the snapshot; not placed", "job", j.ID, "state", j.State)
			continue
		}
		if err != nil {
			return err
		}
	}
	for _, p := range plan.Preemptions {
		j := byID[p.JobID]
		if j == nil {
			continue
		}
		rule := models.PreemptRulePriority
		if p.Rule == scheduler.RuleLASDemotion {
			rule = models.PreemptRuleLASDemotion
		}
		err := d.Lifecycle.RequestStop(ctx, tx, j, models.StopRequest{Kind: models.StopPreempt, Reason: p.Reason,
			ForJobID: p.ForJobID, Rule: rule}, now)
		if errors.Is(err, models.ErrJobEnded) {
			continue
		}
		if err != nil {
			return fmt.Errorf("jobs: preempt job %d for %d: %w", p.JobID, p.ForJobID, err)
		}
	}
	return nil
}

// holdOwners are the users with a pre-warm hold in force: their jobs use it
// up when they start.
func holdOwners(s *scheduler.Snapshot) map[int64]bool {
	out := map[int64]bool{}
	for _, b := range s.Bookings {
		if b.Hold && !b.Start.After(s.Now) && b.End.After(s.Now) {
			out[b.UserID] = true
		}
	}
	return out
}
