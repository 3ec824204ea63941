package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sessionOriginKey marks a request served by the session origin.
const sessionOriginKey = "gpusched.session_origin"

// MarkSessionOrigin records that c came in on the session origin.
func MarkSessionOrigin(c echo.Context) { c.Set(sessionOriginKey, true) }

// OnSessionOrigin reports whether c came in on the session origin.
func OnSessionOrigin(c echo.Context) bool { v, _ := c.Get(sessionOriginKey).(bool); return v }

// sessionHandoff sends a signed-in owner (or admin) of session id from the
// dashboard to the session origin, through a single-use handoff that keeps
// the path asked for.
func (h *Handlers) sessionHandoff(c echo.Context, u *models.User, id int64) error {
	if c.Request().Method != http.MethodGet && c.Request().Method != http.MethodHead {
		return Errorf(http.StatusMisdirectedRequest, api.CodeNotFound, "session %d is served at %s", id, h.Config.SessionOrigin)
	}
	var bs int64
	if p := PrincipalOf(c); p != nil {
		bs = p.SessionID
	}
	t, err := h.Handoff.Mint(c.Request().Context(), h.DB.Bun, Bearer{UserID: u.ID, BrowserSession: bs}, id, h.Now())
	if err != nil {
		return err
	}
	q := url.Values{"t": {t}, "next": {c.Request().URL.RequestURI()}}
	c.Response().Header().Set("Cache-Control", "no-store")
	c.Response().Header().Set("Referrer-Policy", "no-referrer")
	return c.Redirect(http.StatusSeeOther, h.Config.SessionOrigin+api.SessionPath(id)+"_auth?"+q.Encode())
}

// SessionOriginAuth handles /s/{id}/_auth on the session origin: it spends
// the handoff, sets the session origin's cookie for /s/{id}/ only and goes
// on to the path asked for. A spent, expired or foreign handoff is a 404.
func (h *Handlers) SessionOriginAuth(c echo.Context) error {
	id, err := jobID(c)
	if err != nil {
		return err
	}
	now := h.Now()
	b, err := h.Handoff.Redeem(c.Request().Context(), h.DB.Bun, c.QueryParam("t"), id, now)
	if errors.Is(err, errHandoff) {
		return Errorf(http.StatusNotFound, api.CodeNotFound, "session %d not found (the link has expired or was used: open the session again from the dashboard)", id)
	}
	if err != nil {
		return err
	}
	next := sessionNext(c.QueryParam("next"), id)
	c.SetCookie(&http.Cookie{Name: SessionOriginCookie, Value: h.Handoff.Cookie(b, id, now), Path: api.SessionPath(id),
		MaxAge: int(SessionCookieTTL.Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: strings.HasPrefix(h.Config.SessionOrigin, "https://")})
	c.Response().Header().Set("Cache-Control", "no-store")
	c.Response().Header().Set("Referrer-Policy", "no-referrer")
	return c.Redirect(http.StatusSeeOther, next)
}

// sessionNext is where the handoff goes on to: next, when it is a path
// within session id's own (once cleaned of dot segments) other than the
// handoff itself, else the session's root.
func sessionNext(next string, id int64) string {
	root := api.SessionPath(id)
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return root
	}
	if clean := path.Clean(u.Path) + "/"; !strings.HasPrefix(clean, root) || strings.HasPrefix(clean, root+"_auth/") ||
		!strings.HasPrefix(next, root) {
		return root
	}
	return next
}
