package handlers

import (
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// SessionCreate handles POST /api/v1/sessions: queue an interactive
// session (Jupyter, TensorBoard or a web server) as a job of its kind,
// scheduled like any job; answer 201 with the session and the URL where
// it opens once ready.
func (h *Handlers) SessionCreate(c echo.Context) error {
	u := userOf(c)
	var r api.SessionRequest
	if _, err := readJSON(c, &r); err != nil {
		return err
	}
	out, err := h.createSession(c, u, &r)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// createSession validates r and queues the session's job with its session
// row in one transaction, then wakes the scheduler.
func (h *Handlers) createSession(c echo.Context, u *models.User, r *api.SessionRequest) (api.Session, error) {
	ctx := c.Request().Context()
	cfg, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return api.Session{}, fmt.Errorf("handlers: create session: %w", err)
	}
	spec, err := sessionSubmission(r, cfg)
	if err != nil {
		return api.Session{}, err
	}
	cp, err := h.capacity(ctx)
	if err != nil {
		return api.Session{}, err
	}
	job, err := jobFrom(spec, u, cp, h.CanRun)
	if err != nil {
		return api.Session{}, err
	}
	if err := h.applyTimeLimit(ctx, job, spec.TimeLimit); err != nil {
		return api.Session{}, err
	}
	var s *models.SessionJob
	err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		now := h.Now()
		if err := models.CreateJob(ctx, tx.PGX(), job, now); err != nil {
			return err
		}
		if err := models.CreateInteractive(ctx, tx, job.ID, r.Kind, now); err != nil {
			return err
		}
		s = &models.SessionJob{Job: *job, Session: models.InteractiveSession{JobID: job.ID, Kind: r.Kind, CreatedAt: now}}
		return nil
	})
	if err != nil {
		return api.Session{}, fmt.Errorf("handlers: create session: %w", err)
	}
	h.Signals.Signal(models.ChannelJobs, fmt.Sprint(job.ID))
	return sessionJSON(c, s, u.Email), nil
}
