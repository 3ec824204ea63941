package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// SessionList handles GET /api/v1/sessions: the caller's sessions not yet
// ended (?all=1: the last 100, ended too; admins see everyone's with
// ?everyone=1).
func (h *Handlers) SessionList(c echo.Context) error {
	u := userOf(c)
	ctx := c.Request().Context()
	owner := u.ID
	if c.QueryParam("everyone") == "1" && u.IsAdmin() {
		owner = 0
	}
	rows, err := models.ListInteractive(ctx, h.DB.Bun, owner, c.QueryParam("all") == "1", 100)
	if err != nil {
		return err
	}
	emails, err := ownerEmails(ctx, h.DB.Bun)
	if err != nil {
		return fmt.Errorf("handlers: sessions: %w", err)
	}
	out := api.SessionList{Sessions: []api.Session{}}
	for i := range rows {
		out.Sessions = append(out.Sessions, sessionJSON(c, &rows[i], emails[rows[i].Job.OwnerID]))
	}
	return c.JSON(http.StatusOK, out)
}
