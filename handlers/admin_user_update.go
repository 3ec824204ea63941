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

// errNoTeam is a team id that names no team.
var errNoTeam = errors.New("no such team")

// AdminUserUpdate handles POST /admin/users/{id}: set a user's role, team
// and whether disabled, audited in the same transaction. An admin cannot
// demote or disable themselves (someone must be left to undo it).
func (h *Handlers) AdminUserUpdate(c echo.Context) error {
	me := userOf(c)
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return echo.ErrNotFound
	}
	role := c.FormValue("role")
	disabled := c.FormValue("disabled") != ""
	var teamID *int64
	if s := c.FormValue("team_id"); s != "" {
		t, err := strconv.ParseInt(s, 10, 64)
		if err != nil || t <= 0 {
			return h.renderAdminUsers(c, http.StatusBadRequest, "Choose a team from the list.")
		}
		teamID = &t
	}
	if !models.ValidRole(role) {
		return h.renderAdminUsers(c, http.StatusBadRequest, "The role must be admin or member.")
	}
	if id == me.ID && (role != models.RoleAdmin || disabled) {
		return h.renderAdminUsers(c, http.StatusBadRequest, "You cannot demote or disable yourself; ask another admin.")
	}
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		u, err := models.GetUser(ctx, tx, id)
		if err != nil {
			return err
		}
		if teamID != nil {
			ok, err := models.TeamExists(ctx, tx, *teamID)
			if err != nil {
				return err
			}
			if !ok {
				return errNoTeam
			}
		}
		if err := models.SetUserRole(ctx, tx, id, role); err != nil {
			return err
		}
		if err := models.SetUserTeam(ctx, tx, id, teamID); err != nil {
			return err
		}
		if err := models.SetUserDisabled(ctx, tx, id, disabled, h.Now()); err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &me.ID, Action: "user.update", TargetType: "user", TargetID: fmt.Sprint(id),
			Details: map[string]any{"email": u.Email, "role": role, "team_id": teamID, "disabled": disabled,
				"was": map[string]any{"role": u.Role, "team_id": u.TeamID, "disabled": u.DisabledAt != nil}}, RemoteAddr: c.RealIP()})
	})
	switch {
	case errors.Is(err, models.ErrNotFound):
		return echo.ErrNotFound
	case errors.Is(err, errNoTeam):
		return h.renderAdminUsers(c, http.StatusBadRequest, "That team does not exist.")
	case err != nil:
		return fmt.Errorf("handlers: update user %d: %w", id, err)
	}
	return c.Redirect(http.StatusSeeOther, "/admin/users")
}
