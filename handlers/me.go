package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// MeJSON is the body of GET /api/v1/me.
type MeJSON struct {
	User  *models.User     `json:"user"`
	Token *models.APIToken `json:"token,omitempty"`
}

// Me handles GET /api/v1/me: who the token belongs to.
func (h *Handlers) Me(c echo.Context) error {
	p := PrincipalOf(c)
	return c.JSON(http.StatusOK, MeJSON{User: p.User, Token: p.Token})
}
