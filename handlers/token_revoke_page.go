package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// TokenRevokePage handles POST /settings/tokens/{prefix}/revoke: revoke one
// of the user's own tokens (another's is not found).
func (h *Handlers) TokenRevokePage(c echo.Context) error {
	u := userOf(c)
	prefix := c.Param("prefix")
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		if _, err := models.RevokeToken(ctx, tx, prefix, &u.ID, h.Now()); err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "token.revoke", TargetType: "token",
			TargetID: prefix, RemoteAddr: c.RealIP()})
	})
	if errors.Is(err, models.ErrNotFound) {
		return h.renderTokens(c, http.StatusNotFound, views.Tokens{Error: "No such token of yours."})
	}
	if err != nil {
		return fmt.Errorf("handlers: revoke token %s: %w", prefix, err)
	}
	return c.Redirect(http.StatusSeeOther, "/settings/tokens")
}
