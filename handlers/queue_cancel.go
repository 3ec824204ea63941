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

// QueueCancel handles DELETE /api/v1/queue/{id}: cancel a job of one's own
// (admins: any). A queued job is canceled at once; a lease ends and frees
// its GPUs; a job run by an executor is asked to stop, and ends canceled
// whatever else was asked of it. Canceling a job that already ended is a
// 409 saying so. As Slurm's scancel, an array's id cancels all its tasks,
// "123_4" task 4 of array 123 and "123_[1-3,7]" those tasks.
func (h *Handlers) QueueCancel(c echo.Context) error {
	t, err := parseCancelTarget(c.Param("id"))
	if err != nil {
		return err
	}
	out, err := h.cancel(c, userOf(c), t, true)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// cancelJob cancels job id on behalf of u, in one transaction with the job
// locked, audited.
func (h *Handlers) cancelJob(c echo.Context, u *models.User, id int64) (api.Job, error) {
	var out api.Job
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		j, err := h.lockOwnJob(ctx, tx, u, id)
		if err != nil {
			return err
		}
		now := h.Now()
		err = h.Lifecycle.RequestStop(ctx, tx, j, models.StopRequest{Kind: models.StopCancel, Reason: "canceled by " + u.Email, By: &u.ID}, now)
		if errors.Is(err, models.ErrJobEnded) {
			return Errorf(http.StatusConflict, api.CodeBadState, "job %d already ended (%s)", id, j.State)
		}
		if err != nil {
			return err
		}
		if err := models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "job.cancel", TargetType: "job",
			TargetID: fmt.Sprint(id), RemoteAddr: c.RealIP()}); err != nil {
			return err
		}
		out, err = jobAnswer(ctx, tx, id, now)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("handlers: cancel job %d: %w", id, err)
	}
	return out, nil
}
