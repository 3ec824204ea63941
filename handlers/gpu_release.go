package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// GPURelease handles POST /api/v1/cluster/gpu-release: end a lease and free
// its GPUs. Releasing a lease that already ended answers 200 with it, so a
// retry is harmless.
func (h *Handlers) GPURelease(c echo.Context) error {
	var b api.ReleaseRequest
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	u := userOf(c)
	var out api.Job
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		found, err := h.leaseJob(ctx, tx, u, b.JobID)
		if err != nil {
			return err
		}
		j, err := h.lockOwnJob(ctx, tx, u, found.ID)
		if err != nil {
			return err
		}
		if j.Executor != models.ExecutorLease {
			return Errorf(http.StatusConflict, api.CodeNotALease, "job %d runs on the %s executor; cancel it with DELETE /api/v1/queue/%d", j.ID, j.Executor, j.ID)
		}
		now := h.Now()
		reason := "released by " + u.Email
		if j.State == models.JobQueued {
			reason = "released before it got GPUs"
		}
		err = h.Lifecycle.RequestStop(ctx, tx, j, models.StopRequest{Kind: models.StopRelease, Reason: reason, By: &u.ID}, now)
		if err != nil && !errors.Is(err, models.ErrJobEnded) { // releasing an ended lease is harmless
			return err
		}
		out = jobJSON(j.Job, u.Email, now)
		return nil
	})
	if err != nil {
		return fmt.Errorf("handlers: release: %w", err)
	}
	return c.JSON(http.StatusOK, out)
}

// leaseJob finds the job a release names: a number is our id; a string is
// our id in text or the caller's client reference (newest live one).
func (h *Handlers) leaseJob(ctx context.Context, tx *models.Tx, u *models.User, ref api.JobRef) (*models.Job, error) {
	switch {
	case ref.IsZero():
		return nil, invalid("job_id", "required: the id gpu-allocate answered, or your own job_id")
	case ref.ID > 0:
		return ownJob(ctx, tx, u, ref.ID)
	}
	j, err := models.LeaseByClientRef(ctx, tx, u.ID, ref.Ref)
	if err != nil {
		return nil, fromModel(err, "lease "+ref.Ref)
	}
	return j, nil
}
