package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// GPURenew handles POST /api/v1/cluster/gpu-renew (the lease's owner, or an
// admin): a granted lease runs for ttl_s more from now (and counts as
// confirmed); a waiting one gets ttl_s as its TTL once granted. A lease a
// node agent watches is renewed by that agent while its process lives; an
// ended lease cannot be renewed (409).
func (h *Handlers) GPURenew(c echo.Context) error {
	var b api.RenewRequest
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	ctx := c.Request().Context()
	leases, err := h.leasePolicy(ctx)
	if err != nil {
		return err
	}
	if _, err := leaseTTL(b.TTLS, 0, leases); err != nil { // refused before anything is read
		return err
	}
	u := userOf(c)
	var out api.Job
	err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		found, err := h.leaseJob(ctx, tx, u, b.JobID)
		if err != nil {
			return err
		}
		j, err := h.lockOwnJob(ctx, tx, u, found.ID)
		if err != nil {
			return err
		}
		switch {
		case j.Executor != models.ExecutorLease:
			return Errorf(http.StatusConflict, api.CodeNotALease, "job %d runs on the %s executor; only leases (gpu-allocate) have a TTL to renew", j.ID, j.Executor)
		case j.AgentWatched():
			return Errorf(http.StatusConflict, api.CodeWatchedLease, "lease %d is held by process %d on its node, whose agent renews it while the process runs", j.ID, *j.LeasePID)
		case models.IsTerminal(j.State):
			return Errorf(http.StatusConflict, api.CodeBadState, "lease %d already ended (%s); ask for GPUs again with POST /api/v1/cluster/gpu-allocate", j.ID, j.State)
		}
		fallback := time.Duration(leases.DefaultTTL)
		if j.LeaseTTLS != nil {
			fallback = time.Duration(*j.LeaseTTLS) * time.Second
		}
		ttl, _ := leaseTTL(b.TTLS, min(fallback, time.Duration(leases.MaxTTL)), leases)
		now := h.Now()
		if err := h.Lifecycle.RenewLease(ctx, tx, j, ttl, now); err != nil {
			if errors.Is(err, models.ErrJobEnded) {
				return Errorf(http.StatusConflict, api.CodeBadState, "lease %d already ended", j.ID)
			}
			return err
		}
		owner := u.Email
		if j.OwnerID != u.ID {
			o, err := models.GetUser(ctx, tx, j.OwnerID)
			if err != nil {
				return err
			}
			owner = o.Email
		}
		out = jobJSON(j.Job, owner, now)
		return nil
	})
	if err != nil {
		return fmt.Errorf("handlers: renew: %w", err)
	}
	return c.JSON(http.StatusOK, out)
}
