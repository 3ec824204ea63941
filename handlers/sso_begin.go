package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/signin"
)

// SSOBegin handles GET /auth/{provider}: start a sign-in at the identity
// provider. The flow's state, nonce and PKCE verifier go into a sealed
// cookie for a few minutes; the browser is sent to the provider.
func (h *Handlers) SSOBegin(c echo.Context) error {
	p, ok := h.SignIn.Get(c.Param("provider"))
	if !ok {
		return echo.ErrNotFound
	}
	flow, authURL, err := p.Start(safeNext(c.QueryParam("next")))
	if err != nil {
		return fmt.Errorf("handlers: sign-in begin: %w", err)
	}
	if err := h.Sessions.SetFlow(c, flow, signin.FlowLifetime); err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, authURL)
}
