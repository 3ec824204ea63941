package handlers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// leasePolicy returns the lease rules in force, every default filled in.
func (h *Handlers) leasePolicy(ctx context.Context) (scheduler.LeasePolicy, error) {
	cfg, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return scheduler.LeasePolicy{}, fmt.Errorf("handlers: lease policy: %w", err)
	}
	return cfg.Leases.Resolved(), nil
}

// leaseTTL checks a client's ttl_s against p: at least a second and at most
// the policy's cap (400 naming the cap). Without one it answers fallback.
func leaseTTL(asked *int64, fallback time.Duration, p scheduler.LeasePolicy) (time.Duration, error) {
	if asked == nil {
		return fallback, nil
	}
	capS := int64(time.Duration(p.MaxTTL) / time.Second)
	switch {
	case *asked < 1:
		return 0, invalid("ttl_s", "must be at least 1 second, got %d", *asked)
	case *asked > capS:
		return 0, Errorf(http.StatusBadRequest, api.CodeTTLOverCap,
			"ttl_s: %d seconds is over the cap of %s (%d seconds) that the scheduling policy sets for leases (leases.max_ttl); ask for at most %d and renew with POST /api/v1/cluster/gpu-renew",
			*asked, localtime.Span(time.Duration(p.MaxTTL)), capS, capS)
	}
	return time.Duration(*asked) * time.Second, nil
}

// confirmLease confirms, on behalf of its client, that lease j's grant
// reached it (the client reads it running): its expiry moves from the
// confirmation window to its whole TTL. It returns j as it is now.
func (h *Handlers) confirmLease(ctx context.Context, j *models.Job) (*models.Job, error) {
	if j.Executor != models.ExecutorLease || j.State != models.JobRunning || j.LeaseConfirmedAt != nil {
		return j, nil
	}
	var out *models.Job
	err := h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		lj, err := h.Lifecycle.Lock(ctx, tx, j.ID)
		if err != nil {
			return err
		}
		if _, err := h.Lifecycle.ConfirmLease(ctx, tx, lj, h.Now()); err != nil {
			return err
		}
		out = lj.Job
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("handlers: confirm lease %d: %w", j.ID, err)
	}
	return out, nil
}
