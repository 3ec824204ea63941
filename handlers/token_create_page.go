package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// TokenCreatePage handles POST /settings/tokens: create a personal token
// and show it once (the page is not cached).
func (h *Handlers) TokenCreatePage(c echo.Context) error {
	u := userOf(c)
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" || utf8.RuneCountInString(name) > 100 {
		return h.renderTokens(c, http.StatusBadRequest, views.Tokens{Error: "Give the token a name of 1 to 100 characters, like \u201claptop\u201d."})
	}
	var plain string
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		p, tok, err := models.CreateUserToken(ctx, tx, u.ID, name, nil)
		if err != nil {
			return err
		}
		plain = p
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "token.create", TargetType: "token",
			TargetID: tok.Prefix, Details: map[string]any{"name": name}, RemoteAddr: c.RealIP()})
	})
	if err != nil {
		return fmt.Errorf("handlers: create token: %w", err)
	}
	return h.renderTokens(c, http.StatusCreated, views.Tokens{Created: plain})
}
