package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/signin"
)

// SSOCallback handles GET /auth/{provider}/callback: the identity provider
// sends the browser back here. The flow cookie must match (state, nonce,
// PKCE); the identity is then admitted or refused (see admit) and a session
// starts. Refusals show the sign-in page with the reason, status 403.
func (h *Handlers) SSOCallback(c echo.Context) error {
	p, ok := h.SignIn.Get(c.Param("provider"))
	if !ok {
		return echo.ErrNotFound
	}
	var flow signin.Flow
	if !h.Sessions.TakeFlow(c, &flow) {
		return h.renderLogin(c, http.StatusBadRequest, "/", "That sign-in expired or was started in another browser. Please sign in again.")
	}
	id, err := p.Complete(c.Request().Context(), flow, c.QueryParams())
	if errors.Is(err, signin.ErrFlow) {
		return h.renderLogin(c, http.StatusBadRequest, flow.Next, "That sign-in did not match the one started here. Please sign in again.")
	}
	if r := (*signin.Refusal)(nil); errors.As(err, &r) {
		h.log(c).Info("sign-in canceled at the provider", "provider", p.Name, "error", r.Code, "description", r.Description)
		msg := fmt.Sprintf("The sign-in was canceled at %s, so nobody is signed in. Sign in again when you are ready.", p.Label)
		if r.Code != "access_denied" {
			msg = fmt.Sprintf("%s did not sign you in (it answered %q). Please try again, or tell an admin if it keeps happening.", p.Label, r.Code)
		}
		return h.renderLogin(c, http.StatusBadRequest, flow.Next, msg)
	}
	if t := (*signin.TokenError)(nil); errors.As(err, &t) {
		h.log(c).Warn("sign-in refused: ID token failed verification", "provider", p.Name, "err", err)
		return h.renderLogin(c, http.StatusUnauthorized, flow.Next, "The sign-in provider's answer could not be verified, so nobody is signed in. Please try again, or tell an admin if it keeps happening.")
	}
	if err != nil {
		h.log(c).Warn("sign-in failed", "provider", p.Name, "err", err)
		return h.renderLogin(c, http.StatusBadGateway, flow.Next, "The sign-in provider did not complete the sign-in. Please try again.")
	}
	if h.accountLimited(c, id.Provider+"|"+id.Subject) {
		return h.renderLogin(c, tooMany, flow.Next, errAccountLimited)
	}
	user, err := h.admit(c, id)
	var refused *refusal
	if errors.As(err, &refused) {
		h.log(c).Info("sign-in refused", "provider", p.Name, "email", id.Email, "reason", refused.msg)
		return h.renderLogin(c, http.StatusForbidden, flow.Next, refused.msg)
	}
	if err != nil {
		return err
	}
	if err := h.Sessions.Login(c, user.ID); err != nil {
		return err
	}
	h.log(c).Info("sign-in", "provider", p.Name, "user", user.Email)
	return c.Redirect(http.StatusSeeOther, flow.Next)
}
