package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// TokensPage handles GET /settings/tokens: the user's live API tokens.
func (h *Handlers) TokensPage(c echo.Context) error {
	return h.renderTokens(c, http.StatusOK, views.Tokens{})
}

// renderTokens shows the tokens page with t's message or new token.
func (h *Handlers) renderTokens(c echo.Context, status int, t views.Tokens) error {
	u := userOf(c)
	list, err := models.ListTokens(c.Request().Context(), h.DB.Bun, models.TokenFilter{UserID: &u.ID})
	if err != nil {
		return err
	}
	for _, tok := range list {
		row := views.TokenRow{Name: tok.Name, Prefix: tok.Prefix, Created: localtime.DateTime(tok.CreatedAt, viewerZone(c)), LastUsed: "never"}
		if tok.LastUsedAt != nil {
			row.LastUsed = localtime.DateTime(*tok.LastUsedAt, viewerZone(c))
		}
		t.List = append(t.List, row)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, status, views.TokensPage(h.Page(c, "API tokens", "settings"), t))
}
