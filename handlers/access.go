package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// jobID reads the {id} path parameter.
func jobID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, Errorf(http.StatusBadRequest, api.CodeInvalidPath, "job id %q is not a positive number", c.Param("id"))
	}
	return id, nil
}

// ownJob loads job id for user u, who must own it or be an admin. Another
// member's job is a 404, so members cannot probe which ids exist.
func ownJob(ctx context.Context, db bun.IDB, u *models.User, id int64) (*models.Job, error) {
	j, err := models.GetJob(ctx, db, id)
	if err != nil {
		return nil, fromModel(err, fmt.Sprintf("job %d", id))
	}
	if j.OwnerID != u.ID && !u.IsAdmin() {
		return nil, Errorf(http.StatusNotFound, api.CodeNotFound, "job %d not found", id)
	}
	return j, nil
}

// lockOwnJob locks job id in tx for a lifecycle step on behalf of u: the
// job must be u's own, or u an admin (else 404, as if it did not exist).
func (h *Handlers) lockOwnJob(ctx context.Context, tx *models.Tx, u *models.User, id int64) (*models.LockedJob, error) {
	j, err := h.Lifecycle.Lock(ctx, tx, id)
	if err != nil {
		return nil, fromModel(err, fmt.Sprintf("job %d", id))
	}
	if j.OwnerID != u.ID && !u.IsAdmin() {
		return nil, Errorf(http.StatusNotFound, api.CodeNotFound, "job %d not found", id)
	}
	return j, nil
}

// ownerEmails maps user ids to emails for shaping jobs.
func ownerEmails(ctx context.Context, db bun.IDB) (map[int64]string, error) {
	users, err := models.ListUsers(ctx, db)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(users))
	for _, u := range users {
		out[u.ID] = u.Email
	}
	return out, nil
}

// jobAnswer reloads job id and shapes it, with its owner's email, for an
// answer.
func jobAnswer(ctx context.Context, db bun.IDB, id int64, now time.Time) (api.Job, error) {
	j, err := models.GetJob(ctx, db, id)
	if err != nil {
		return api.Job{}, err
	}
	owner, err := models.GetUser(ctx, db, j.OwnerID)
	if err != nil {
		return api.Job{}, err
	}
	return jobJSON(j, owner.Email, now), nil
}
