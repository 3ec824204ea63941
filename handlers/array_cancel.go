package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// cancelTarget is what a cancel names: a job (or a whole array: its id),
// or some tasks of an array.
type cancelTarget struct {
	id    int64
	tasks []int // nil: the job id, or all of array id
}

// parseCancelTarget reads a cancel's {id} as Slurm's scancel does: "123"
// (a job, or the whole array 123), "123_4" (task 4 of array 123),
// "123_[1-3,7]" (those tasks).
func parseCancelTarget(raw string) (cancelTarget, error) {
	text, err := url.PathUnescape(raw)
	if err != nil {
		text = raw
	}
	job, tasks, isTask := strings.Cut(text, "_")
	id, err := strconv.ParseInt(job, 10, 64)
	if err != nil || id <= 0 {
		return cancelTarget{}, Errorf(http.StatusBadRequest, api.CodeInvalidPath,
			"job id %q is not a positive number, or ARRAY_TASK, or ARRAY_[TASKS] (\"123_4\", \"123_[1-3,7]\")", text)
	}
	t := cancelTarget{id: id}
	if !isTask {
		return t, nil
	}
	spec, err := api.ParseArray(strings.TrimSuffix(strings.TrimPrefix(tasks, "["), "]"))
	if err != nil || spec.MaxRunning != 0 {
		return cancelTarget{}, Errorf(http.StatusBadRequest, api.CodeInvalidPath, "%q does not name tasks of array %d: %v", text, id, err)
	}
	t.tasks = spec.Tasks
	return t, nil
}

// cancel cancels what t names on behalf of u: tasks of an array, the whole
// array when t is an array's id and whole is set (as Slurm's scancel), else
// the one job.
func (h *Handlers) cancel(c echo.Context, u *models.User, t cancelTarget, whole bool) (api.Job, error) {
	ctx := c.Request().Context()
	if t.tasks == nil {
		if !whole {
			return h.cancelJob(c, u, t.id)
		}
		if _, err := models.GetArray(ctx, h.DB.Bun, t.id); errors.Is(err, models.ErrNotFound) {
			return h.cancelJob(c, u, t.id)
		} else if err != nil {
			return api.Job{}, err
		}
	}
	return h.cancelArray(c, u, t)
}

// cancelArray cancels the live tasks of array t.id that t names (all: nil
// tasks), in one transaction with each locked, audited once; the answer is
// the array's first task with the array's summary. Another member's array
// is a 404; one with nothing left to cancel a 409.
func (h *Handlers) cancelArray(c echo.Context, u *models.User, t cancelTarget) (api.Job, error) {
	var out api.Job
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		a, err := models.GetArray(ctx, tx, t.id)
		if err != nil || (a.OwnerID != u.ID && !u.IsAdmin()) {
			return Errorf(http.StatusNotFound, api.CodeNotFound, "array %d not found", t.id)
		}
		ids, err := models.LiveArrayTasks(ctx, tx, a.ID, t.tasks)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return Errorf(http.StatusConflict, api.CodeBadState, "array %d has no live task to cancel among those named", a.ID)
		}
		tasks, err := h.Lifecycle.LockMany(ctx, tx, ids)
		if err != nil {
			return err
		}
		now := h.Now()
		stop := models.StopRequest{Kind: models.StopCancel, Reason: "canceled by " + u.Email, By: &u.ID}
		running, err := h.Lifecycle.CancelQueued(ctx, tx, tasks, stop, now) // the queued ones at once, together
		if err != nil {
			return err
		}
		for _, j := range running {
			if err := h.Lifecycle.RequestStop(ctx, tx, j, stop, now); err != nil && !errors.Is(err, models.ErrJobEnded) {
				return err
			}
		}
		if err := models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "array.cancel", TargetType: "array",
			TargetID: fmt.Sprint(a.ID), Details: map[string]any{"tasks": len(tasks)}, RemoteAddr: c.RealIP()}); err != nil {
			return err
		}
		if out, err = jobAnswer(ctx, tx, a.ID, now); err != nil {
			return err
		}
		states, err := models.ArrayStates(ctx, tx, []int64{a.ID})
		out.Array = arraySummary(a, states[a.ID])
		return err
	})
	if err != nil {
		return out, fmt.Errorf("handlers: cancel array %d: %w", t.id, err)
	}
	return out, nil
}
