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
// An Idempotency-Key makes a retry return the same job. A job that waits
// for others ("after") is queued in a transaction with its conditions; an
// array ("array") with all its tasks in one statement.
func (h *Handlers) QueueSubmit(c echo.Context) error {
	u := userOf(c)
	var spec api.SubmitRequest
	body, err := readJSON(c, &spec)
	if err != nil {
		return err
	}
	if models.SessionKindOf(spec.JobType) != "" {
		return invalid("job_type", "%q is reserved for interactive sessions: start one with POST /api/v1/sessions", spec.JobType)
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
	if err := h.applyTimeLimit(ctx, job, spec.TimeLimit); err != nil {
		return err
	}
	deps, err := dependenciesFrom(spec.After, job.Executor)
	if err != nil {
		return err
	}
	array, err := arrayFrom(spec.Array, job.Executor)
	if err != nil {
		return err
	}
	if c.Request().Header.Get("Idempotency-Key") == "" && len(deps) == 0 && array == nil {
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
			job.SubmittedAt = h.Now()
			conds, a, err := createQueued(ctx, tx, job, deps, array)
			if err != nil {
				return 0, nil, err
			}
			answer := jobJSON(job, u.Email, job.SubmittedAt)
			answer.After = dependencyStates(conds)
			if a != nil {
				answer.Array = arraySummary(a, map[string]int{models.JobQueued: a.TaskCount})
			}
			return http.StatusCreated, answer, nil
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("handlers: submit: %w", err)
	}
	h.Signals.Signal(models.ChannelJobs, fmt.Sprint(job.ID))
	return c.JSON(status, out)
}
