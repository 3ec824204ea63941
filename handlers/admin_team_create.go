package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// AdminTeamCreate handles POST /admin/teams: create a team, audited.
func (h *Handlers) AdminTeamCreate(c echo.Context) error {
	me := userOf(c)
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" || utf8.RuneCountInString(name) > 100 {
		return h.renderAdminTeams(c, http.StatusBadRequest, "Give the team a name of 1 to 100 characters.")
	}
	weight, gpuCap, msg := teamForm(c)
	if msg != "" {
		return h.renderAdminTeams(c, http.StatusBadRequest, msg)
	}
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		t, err := models.CreateTeam(ctx, tx, name, weight, gpuCap)
		if err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &me.ID, Action: "team.create", TargetType: "team", TargetID: fmt.Sprint(t.ID),
			Details: map[string]any{"name": name, "weight": weight, "gpu_cap": gpuCap}, RemoteAddr: c.RealIP()})
	})
	if errors.Is(err, models.ErrConflict) {
		return h.renderAdminTeams(c, http.StatusConflict, fmt.Sprintf("A team named %q exists already.", name))
	}
	if err != nil {
		return fmt.Errorf("handlers: create team: %w", err)
	}
	return c.Redirect(http.StatusSeeOther, "/admin/teams")
}
