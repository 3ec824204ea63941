package handlers

import (
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// QueuePriority handles PATCH /api/v1/queue/{id}/priority: change the
// priority of one's own pending or running job (admins: any; critical is
// for admins). The scheduler applies it at its next pass.
func (h *Handlers) QueuePriority(c echo.Context) error {
	id, err := jobID(c)
	if err != nil {
		return err
	}
	var b api.PriorityRequest
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if b.Priority == 0 {
		return invalid("priority", "required: 1–4 or low, normal, high, critical")
	}
	u := userOf(c)
	p, err := priorityFor(b.Priority, u)
	if err != nil {
		return err
	}
	out, err := h.setPriority(c, u, id, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// setPriority sets the priority of job id for u (owner or admin) and
// answers the job; API and pages share it.
func (h *Handlers) setPriority(c echo.Context, u *models.User, id int64, p int) (api.Job, error) {
	var out api.Job
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		j, err := ownJob(ctx, tx, u, id)
		if err != nil {
			return err
		}
		if models.IsTerminal(j.State) {
			return Errorf(http.StatusConflict, api.CodeBadState, "job %d already ended (%s)", id, j.State)
		}
		now := h.Now()
		if err := models.SetJobPriority(ctx, tx, id, p, now); err != nil {
			return err
		}
		if err := models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "job.priority", TargetType: "job",
			TargetID: fmt.Sprint(id), Details: map[string]any{"from": j.Priority, "to": p}, RemoteAddr: c.RealIP()}); err != nil {
			return err
		}
		out, err = jobAnswer(ctx, tx, id, now)
		return err
	})
	if err != nil {
		return api.Job{}, fmt.Errorf("handlers: priority of job %d: %w", id, err)
	}
	return out, nil
}
