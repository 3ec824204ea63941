package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// SessionEndPage handles POST /settings/sessions/{id}/end: sign one of the
// person's own sessions out (another's is not found). Ending this very
// browser's session signs it out and goes to the sign-in page.
func (h *Handlers) SessionEndPage(c echo.Context) error {
	p := PrincipalOf(c)
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return h.renderSettings(c, http.StatusNotFound, views.Settings{Error: "No such session of yours."})
	}
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		if err := models.EndSession(ctx, tx, p.User.ID, id, h.Now()); err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &p.User.ID, Action: "session.end", TargetType: "session",
			TargetID: fmt.Sprint(id), RemoteAddr: c.RealIP()})
	})
	if errors.Is(err, models.ErrNotFound) {
		return h.renderSettings(c, http.StatusNotFound, views.Settings{Error: "No such session of yours."})
	}
	if err != nil {
		return fmt.Errorf("handlers: end session %d: %w", id, err)
	}
	if id == p.SessionID {
		if err := h.Sessions.Logout(c); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, "/login")
	}
	return c.Redirect(http.StatusSeeOther, "/settings?notice=session-ended")
}

// SessionsEndAllPage handles POST /settings/sessions/end-all: "Sign out
// everywhere", this browser included.
func (h *Handlers) SessionsEndAllPage(c echo.Context) error {
	u := userOf(c)
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		n, err := models.EndUserSessions(ctx, tx, u.ID, h.Now())
		if err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "session.end_all", TargetType: "user",
			TargetID: fmt.Sprint(u.ID), Details: map[string]any{"ended": n}, RemoteAddr: c.RealIP()})
	})
	if err != nil {
		return fmt.Errorf("handlers: sign out everywhere: %w", err)
	}
	if err := h.Sessions.Logout(c); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/login")
}
