package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// endUserSessions ends every session of user id for the calling admin,
// audited in the same transaction, and returns how many ended.
func (h *Handlers) endUserSessions(c echo.Context, id int64) (int, error) {
	p := PrincipalOf(c)
	var n int
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		u, err := models.GetUser(ctx, tx, id)
		if err != nil {
			return err
		}
		if n, err = models.EndUserSessions(ctx, tx, id, h.Now()); err != nil {
			return err
		}
		e := &models.AuditEntry{ActorUserID: &p.User.ID, Action: "user.sessions.end", TargetType: "user", TargetID: fmt.Sprint(id),
			Details: map[string]any{"email": u.Email, "ended": n}, RemoteAddr: c.RealIP()}
		if p.Token != nil {
			e.ActorTokenID = &p.Token.ID
		}
		return models.Audit(ctx, tx, e)
	})
	return n, err
}

// AdminUserSessionsEnd handles POST /admin/users/{id}/sessions/end: an
// admin signs a user out of every browser.
func (h *Handlers) AdminUserSessionsEnd(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return echo.ErrNotFound
	}
	_, err = h.endUserSessions(c, id)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return echo.ErrNotFound
	case err != nil:
		return fmt.Errorf("handlers: end sessions of user %d: %w", id, err)
	}
	return c.Redirect(http.StatusSeeOther, "/admin/users")
}

// UserSessionsEnd handles DELETE /api/v1/users/{id}/sessions (admins): end
// every browser session of the user. Answers {"ended": N}.
func (h *Handlers) UserSessionsEnd(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return Errorf(http.StatusBadRequest, api.CodeInvalidID, "id must be a positive user id")
	}
	n, err := h.endUserSessions(c, id)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return Errorf(http.StatusNotFound, api.CodeNotFound, "no user %d", id)
	case err != nil:
		return fmt.Errorf("handlers: end sessions of user %d: %w", id, err)
	}
	return c.JSON(http.StatusOK, map[string]int{"ended": n})
}
