package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// newSessionOrigin assembles the session origin's server: /s/{id}/… only,
// on its own listener and origin, so that script in a session's pages
// cannot read the dashboard. It never reads the dashboard's cookie: the
// caller is who the session origin's own cookie (set through a handoff
// from the dashboard) names.
func (s *Server) newSessionOrigin() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = s.Echo.IPExtractor
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID}))
	e.Use(s.requestLogger)
	e.Use(middleware.Recover())
	e.Use(limitBodies)
	e.Use(handlers.CheckParams)
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			handlers.MarkSessionOrigin(c)
			c.Response().Header().Set("X-Content-Type-Options", "nosniff")
			return next(c)
		}
	})
	s.sessionOriginRoutes(e)
	return e
}

// sessionOriginUser signs in the caller of /s/{id}/… from the session
// origin's cookie for that session, while the dashboard's browser session
// it came from lives (signing out there ends it here too); without one (or with one that does
// not verify) a browser goes to the dashboard's /s/{id}/, which signs it
// in if needed and hands it back.
func (s *Server) sessionOriginUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil || id <= 0 {
			return echo.ErrNotFound
		}
		if ck, err := c.Cookie(handlers.SessionOriginCookie); err == nil {
			if b, err := s.h.Handoff.CookieBearer(ck.Value, id, s.now()); err == nil {
				ctx := c.Request().Context()
				live, err := models.SessionLiveByID(ctx, s.db.Bun, b.BrowserSession, b.UserID, s.now())
				if err != nil {
					return err
				}
				if u, err := models.GetUser(ctx, s.db.Bun, b.UserID); live && err == nil {
					handlers.SetPrincipal(c, &handlers.Principal{User: u})
					return next(c)
				}
			}
		}
		if c.Request().Method != http.MethodGet && c.Request().Method != http.MethodHead {
			return handlers.Errorf(http.StatusUnauthorized, api.CodeUnauthorized, "open the session from the dashboard first")
		}
		back := s.h.Config.DashboardURL + api.SessionPath(id) + c.Param("*")
		if q := c.Request().URL.RawQuery; q != "" {
			back += "?" + q
		}
		return c.Redirect(http.StatusSeeOther, back)
	}
}

// SessionOrigin is the handler of the session origin, for its listener;
// the dashboard hands sessions to it once Config.SessionOrigin is set.
func (s *Server) SessionOrigin() http.Handler { return s.sessionOrigin }
