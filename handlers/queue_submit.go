package handlers

import (
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// QueueSubmit handles POST /api/v1/queue/submit: validate the job against
// the cluster and the caller's rights, queue it (with its first event and a
// change signal that wakes the scheduler), and answer 201 with the job.
// An Idempotency-Key makes a retry return the same job.
func (h *Handlers) QueueSubmit(c echo.Context) error {
	u := userOf(c)
	var spec api.SubmitRequest
	body, err := readJSON(c, &spec)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cp, err := h.capacity(ctx)
	if err != nil {
		return err
	}
	if spec.Executor == "" {
		spec.Executor = h.Config.DefaultExecutor // "" leaves node
	}
	job, err := jobFrom(&spec, u, cp, h.CanRun)
	if err != nil {
		return err
	}
	if c.Request().Header.Get("Idempotency-Key") == "" {
		// One atomic statement, shared with the submissions that arrive
		// together: no transaction needed.
		now := h.Now()
		if err := h.jobBatch.Create(ctx, h.DB.Pool, job, now); err != nil {
			return fmt.Errorf("handlers: submit: %w", err)
		}
		h.Signals.Signal(models.ChannelJobs, fmt.Sprint(job.ID))
		return c.JSON(http.StatusCreated, jobJSON(job, u.Email, now))
	}
	var status int
	var out any
	err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		status, out, err = idempotent(c, tx, body, func(ctx context.Context) (int, any, error) {
			now := h.Now()
			if err := models.CreateJob(ctx, tx.PGX(), job, now); err != nil {
				return 0, nil, err
			}
			return http.StatusCreated, jobJSON(job, u.Email, now), nil
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("handlers: submit: %w", err)
	}
	h.Signals.Signal(models.ChannelJobs, fmt.Sprint(job.ID))
	return c.JSON(status, out)
}
