package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// releaseBody is the body of POST /cluster/gpu-release: {job_id}, the
// numeric id this API gave, or the caller's own job_id of a running lease.
type releaseBody struct {
	JobID json.RawMessage `json:"job_id"`
}

// GPURelease handles POST /api/v1/cluster/gpu-release: end a lease and free
// its GPUs. Releasing a lease that already ended answers 200 with it, so a
// retry is harmless.
func (h *Handlers) GPURelease(c echo.Context) error {
	var b releaseBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	u := userOf(c)
	var out JobJSON
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
			return Errorf(http.StatusConflict, "not_a_lease", "job %d runs on the %s executor; cancel it with DELETE /api/v1/queue/%d", j.ID, j.Executor, j.ID)
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
func (h *Handlers) leaseJob(ctx context.Context, tx *models.Tx, u *models.User, raw json.RawMessage) (*models.Job, error) {
	var id int64
	var ref string
	if err := json.Unmarshal(raw, &id); err == nil && id <= 0 {
		return nil, invalid("job_id", "must be a positive id, not %d", id)
	} else if err != nil {
		if err := json.Unmarshal(raw, &ref); err != nil || ref == "" {
			return nil, invalid("job_id", "required: the id gpu-allocate answered, or your own job_id")
		}
		if n, err := strconv.ParseInt(ref, 10, 64); err == nil {
			id = n
		}
	}
	if id > 0 {
		return ownJob(ctx, tx, u, id)
	}
	j, err := models.LeaseByClientRef(ctx, tx, u.ID, ref)
	if err != nil {
		return nil, fromModel(err, "lease "+ref)
	}
	return j, nil
}
