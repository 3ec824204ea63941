package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// AdminTeamUpdate handles POST /admin/teams/{id}: set weight and GPU cap, audited.
func (h *Handlers) AdminTeamUpdate(c echo.Context) error {
	me := userOf(c)
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return echo.ErrNotFound
	}
	weight, gpuCap, msg := teamForm(c)
	if msg != "" {
		return h.renderAdminTeams(c, http.StatusBadRequest, msg)
	}
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		t, err := models.UpdateTeam(ctx, tx, id, weight, gpuCap)
		if err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &me.ID, Action: "team.update", TargetType: "team", TargetID: fmt.Sprint(id),
			Details: map[string]any{"name": t.Name, "weight": weight, "gpu_cap": gpuCap}, RemoteAddr: c.RealIP()})
	})
	if errors.Is(err, models.ErrNotFound) {
		return echo.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("handlers: update team %d: %w", id, err)
	}
	return c.Redirect(http.StatusSeeOther, "/admin/teams")
}
