package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// SessionGet handles GET /api/v1/sessions/{id}: one's own session (admins:
// any); another member's is a 404.
func (h *Handlers) SessionGet(c echo.Context) error {
	s, owner, err := h.ownSession(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sessionJSON(c, s, owner))
}

// ownSession loads the session in the path for the caller, who must own it
// or be an admin (else 404), with its owner's email.
func (h *Handlers) ownSession(c echo.Context) (*models.SessionJob, string, error) {
	id, err := jobID(c)
	if err != nil {
		return nil, "", err
	}
	ctx := c.Request().Context()
	u := userOf(c)
	s, err := models.GetInteractive(ctx, h.DB.Bun, id)
	if err != nil {
		return nil, "", fromModel(err, fmt.Sprintf("session %d", id))
	}
	if s.Job.OwnerID != u.ID && !u.IsAdmin() {
		return nil, "", Errorf(http.StatusNotFound, api.CodeNotFound, "session %d not found", id)
	}
	owner, err := models.GetUser(ctx, h.DB.Bun, s.Job.OwnerID)
	if err != nil {
		return nil, "", fmt.Errorf("handlers: owner of session %d: %w", id, err)
	}
	return s, owner.Email, nil
}
