package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// tokenKind says which tokens a route group accepts.
type tokenKind int

const (
	userTokens tokenKind = iota
	nodeTokens
)

// bearer authenticates `Authorization: Bearer <token>` and puts the caller on
// the context. User routes take personal tokens only, node routes node
// tokens only. Every failure is a JSON 401 (or 403 for the wrong kind).
func (s *Server) bearer(kind tokenKind) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			scheme, plain, ok := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
			if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(plain) == "" {
				return handlers.ErrUnauthorized
			}
			plain = strings.TrimSpace(plain)
			tok, ok := s.tokens.get(plain)
			if !ok {
				var err error
				tok, err = models.AuthenticateToken(c.Request().Context(), s.db.Bun, plain, s.now())
				if errors.Is(err, models.ErrBadToken) {
					return handlers.ErrUnauthorized
				}
				if err != nil {
					return fmt.Errorf("web: authenticate token: %w", err)
				}
				var expires time.Time
				if tok.ExpiresAt != nil {
					expires = *tok.ExpiresAt
				}
				s.tokens.put(plain, tok, expires)
			}
			p := &handlers.Principal{Token: tok}
			switch {
			case kind == userTokens && tok.IsNode():
				return handlers.Errorf(http.StatusForbidden, api.CodeNodeToken, "node tokens can only call the node routes; use a personal token (gpusched token create --user EMAIL)")
			case kind == nodeTokens && !tok.IsNode():
				return handlers.Errorf(http.StatusForbidden, api.CodeNotNodeToken, "this route is for node agents; use a node token (gpusched token create --node NAME)")
			case tok.IsNode():
				if tok.Node == nil {
					return handlers.ErrUnauthorized
				}
				p.Node = tok.Node
			default:
				if tok.User == nil || tok.User.DisabledAt != nil {
					return handlers.ErrUnauthorized
				}
				p.User = tok.User
			}
			s.touches.touch(tok.ID)
			handlers.SetPrincipal(c, p)
			return next(c)
		}
	}
}

// session loads the signed-in user from the session cookie, if its
// server-side session is live and the user enabled.
func (s *Server) session(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		in, ok, err := s.sessions.Lookup(c.Request().Context(), c.Request(), c.RealIP())
		if err != nil {
			return err
		}
		if ok {
			handlers.SetPrincipal(c, &handlers.Principal{User: in.User, SessionID: in.SessionID})
		}
		return next(c)
	}
}

// signedIn sends anonymous browsers to the sign-in page (htmx requests get
// an HX-Redirect, since a redirected fragment would land inside the page).
func signedIn(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if p := handlers.PrincipalOf(c); p != nil && p.User != nil {
			return next(c)
		}
		login := "/login?next=" + url.QueryEscape(c.Request().URL.RequestURI())
		if c.Request().Header.Get("HX-Request") == "true" {
			c.Response().Header().Set("HX-Redirect", login)
			return c.NoContent(http.StatusUnauthorized)
		}
		if c.Request().Method != http.MethodGet {
			return handlers.Errorf(http.StatusUnauthorized, api.CodeUnauthorized, "sign in first")
		}
		return c.Redirect(http.StatusSeeOther, login)
	}
}

// adminOnly lets only admins through.
func adminOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if p := handlers.PrincipalOf(c); p != nil && p.User != nil && p.User.IsAdmin() {
			return next(c)
		}
		return handlers.ErrForbidden
	}
}

// sameOrigin refuses state-changing requests whose Origin is another site.
// It guards mounted apps (the River UI) that cannot carry our CSRF token.
func sameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			return handlers.Errorf(http.StatusForbidden, api.CodeCrossOrigin, "cross-site request refused")
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Host != r.Host {
				return handlers.Errorf(http.StatusForbidden, api.CodeCrossOrigin, "cross-site request refused")
			}
		}
		return next(c)
	}
}
