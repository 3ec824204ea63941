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
	next := safeNext(c.QueryParam("next"))
	flow, authURL, err := p.Start(c.Request().Context(), next)
	if err != nil {
		h.log(c).Warn("sign-in provider unavailable", "provider", p.Name, "err", err)
		return h.renderLogin(c, http.StatusServiceUnavailable, next, fmt.Sprintf("%s is not reachable right now, so sign-in with it cannot start. Try again in a minute, or tell an admin.", p.Label))
	}
	if err := h.Sessions.SetFlow(c, flow, signin.FlowLifetime); err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, authURL)
}
