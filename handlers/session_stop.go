package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// SessionStop handles DELETE /api/v1/sessions/{id}: stop one's own session
// (admins: any) through the job's lifecycle, as a cancel: the server gets
// SIGTERM, its GPUs go back, saved notebooks stay in its working directory.
func (h *Handlers) SessionStop(c echo.Context) error {
	s, owner, err := h.ownSession(c)
	if err != nil {
		return err
	}
	if _, err := h.cancelJob(c, userOf(c), s.Job.ID); err != nil {
		return err
	}
	if s, owner, err = h.ownSession(c); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sessionJSON(c, s, owner))
}
