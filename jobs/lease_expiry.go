package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// LeaseExpiryArgs asks for one sweep of expired leases.
type LeaseExpiryArgs struct{}

// Kind is the River job kind.
func (LeaseExpiryArgs) Kind() string { return "lease_expiry" }

// LeaseExpiryWorker ends leases whose time is up and frees their GPUs.
type LeaseExpiryWorker struct {
	river.WorkerDefaults[LeaseExpiryArgs]
	deps *Deps
}

// Work runs one sweep. Leases that node agents watch are judged only when
// nodes are (node_liveness_grace.go): after the control plane was away, the
// agents could not renew them meanwhile and get the same time to report
// again as their nodes do.
func (w *LeaseExpiryWorker) Work(ctx context.Context, _ *river.Job[LeaseExpiryArgs]) error {
	d := *w.deps
	judged, err := nodesJudged(ctx, d)
	if err != nil {
		return err
	}
	return expireLeases(ctx, d, judged)
}

// ExpireLeases ends every granted lease past its expiry, each in its own
// transaction through the job lifecycle (it completes; the reason says
// why: its client never confirmed the grant, its TTL ran out, or its node
// agent stopped renewing it), and logs how many.
func ExpireLeases(ctx context.Context, d Deps) error { return expireLeases(ctx, d, true) }

// expireLeases is ExpireLeases; watched leases only when watched is set.
func expireLeases(ctx context.Context, d Deps, watched bool) error {
	q := d.DB.Bun.NewSelect().Model((*models.Job)(nil)).Column("id").
		Where("state = ?", models.JobRunning).Where("executor = ?", models.ExecutorLease).
		Where("lease_expires_at <= ?", d.Now()).OrderExpr("id")
	if !watched {
		q = q.Where("lease_pid IS NULL")
	}
	var ids []int64
	if err := q.Scan(ctx, &ids); err != nil {
		return fmt.Errorf("jobs: expired leases: %w", err)
	}
	var ended []int64
	for _, id := range ids {
		err := d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			j, err := d.Lifecycle.Lock(ctx, tx, id)
			if err != nil {
				return err
			}
			now := d.Now()
			if j.State != models.JobRunning || j.LeaseExpiresAt == nil || j.LeaseExpiresAt.After(now) {
				return nil // released or renewed meanwhile
			}
			ended = append(ended, id)
			return d.Lifecycle.RequestStop(ctx, tx, j, models.StopRequest{Kind: models.StopExpire, Reason: expiryReason(j.Job)}, now)
		})
		if err != nil {
			return fmt.Errorf("jobs: expire lease %d: %w", id, err)
		}
	}
	if len(ended) > 0 {
		d.Logger.Info("leases expired", "jobs", ended)
	}
	return nil
}

// expiryReason is the sentence of lease j's end at its expiry, for its
// timeline and its owner.
func expiryReason(j *models.Job) string {
	switch {
	case j.LeaseConfirmedAt == nil:
		window := "its confirmation window"
		if j.StartedAt != nil {
			window = localtime.Span(j.LeaseExpiresAt.Sub(*j.StartedAt))
		}
		return fmt.Sprintf("lease expired: its client never confirmed the grant within %s (leases.confirm_within), so the GPUs were given back", window)
	case j.AgentWatched():
		return fmt.Sprintf("lease expired: its node agent stopped renewing it (process %d, or the agent, is gone)", *j.LeasePID)
	case j.LeaseTTLS != nil:
		return fmt.Sprintf("lease expired: its TTL of %s ran out without a renewal (POST /api/v1/cluster/gpu-renew)",
			localtime.Span(time.Duration(*j.LeaseTTLS)*time.Second))
	}
	return "lease expired"
}

// nodesJudged reports whether nodes are judged by their heartbeats now:
// the liveness sweep has run since the control plane was last away, and
// the grace it then gave nodes to report again is over.
func nodesJudged(ctx context.Context, d Deps) (bool, error) {
	var st livenessSweep
	found, err := models.GetSetting(ctx, d.DB.Bun, settingLivenessSweep, &st)
	if err != nil {
		return false, err
	}
	now := d.Now()
	away := max(d.Config.NodeDownAfter*5/6, 2*livenessEvery(d.Config))
	return found && now.Sub(st.At) <= away && !now.Before(st.GraceUntil), nil
}
