// Package web assembles GPUScheduler's HTTP server: the echo instance, the
// one route table, middleware (request ids, logging, recovery, security
// headers, gzip, auth, CSRF, metrics), sessions, the SSE hub and the
// embedded static files.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Options are the parts the server is built from.
type Options struct {
	Handlers *handlers.Handlers
	DB       *models.DB
	Listener *models.Listener
	Sessions *Sessions
	Hub      *Hub
	Metrics  *Metrics
	Gatherer prometheus.Gatherer
	Static   http.Handler // the embedded assets, mounted at /static/
	RiverUI  http.Handler // mounted at /admin/river for admins; nil leaves it out
	Logger   *slog.Logger
	Now      func() time.Time
	// SecureCookies marks cookies Secure (an https base URL).
	SecureCookies bool
	// SignInRate limits the sign-in routes per client address (zero: DefaultSignInRate).
	SignInRate RateLimit
	// SignInAccountRate limits sign-ins per account (zero: DefaultSignInAccountRate).
	SignInAccountRate RateLimit
	// TrustedProxies may name the client in X-Forwarded-For; from anyone
	// else the header is ignored and the client is the connection's peer.
	TrustedProxies []netip.Prefix
}

// Server is the assembled HTTP server.
type Server struct {
	Echo *echo.Echo

	h        *handlers.Handlers
	db       *models.DB
	sessions *Sessions
	hub      *Hub
	touches  *tokenTouches
	tokens   *tokenCache
	listener *models.Listener
	logger   *slog.Logger
	now      func() time.Time
	// sessionOrigin serves /s/{id}/… on its own origin (session_origin.go).
	sessionOrigin *echo.Echo
}

// New assembles the server; Run starts its background work.
func New(o Options) *Server {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = ipExtractor(o.TrustedProxies)
	s := &Server{
		Echo: e, h: o.Handlers, db: o.DB, sessions: o.Sessions, hub: o.Hub, logger: o.Logger, now: o.Now,
		touches: newTokenTouches(o.DB, o.Logger, o.Now),
		tokens:  newSecretCache[*models.APIToken](30*time.Second, o.Now), listener: o.Listener,
	}
	o.Sessions.db = o.DB // sessions live in the database (see session.go)
	o.Handlers.SignInAccountLimit = accountLimit(o.SignInAccountRate)
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID}))
	e.Use(s.requestLogger)
	e.Use(o.Metrics.middleware)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.logger.Error("panic", "err", err, "request_id", c.Response().Header().Get(echo.HeaderXRequestID),
				"method", c.Request().Method, "path", logPath(c.Request().URL.Path), "stack", string(stack))
			return err
		},
	}))
	e.Use(securityHeaders(o.SecureCookies, o.Handlers))
	// Every body is bounded before anything reads it (body_limit.go).
	e.Use(limitBodies)
	// Path, query and form parameters are acceptable text: valid UTF-8, no
	// NUL, no control characters where the field is one line (400 naming it).
	e.Use(handlers.CheckParams)
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{
		// Fastest level: most of the saving for a fraction of the CPU, on
		// responses worth compressing at all.
		Level:     1,
		MinLength: 1024,
		Skipper: func(c echo.Context) bool {
			p := c.Request().URL.Path
			return p == "/events" || strings.HasPrefix(p, "/admin/river") || p == "/metrics" || strings.HasPrefix(p, "/s/")
		},
	}))
	s.routes(o)
	s.sessionOrigin = s.newSessionOrigin()
	return s
}

// Run does the server's background work (batched token bookkeeping, token
// and session cache invalidation) until ctx ends.
func (s *Server) Run(ctx context.Context) {
	go s.tokens.watch(ctx, s.listener)
	go s.sessions.cache.watch(ctx, s.listener)
	go s.pruneSessions(ctx)
	s.touches.run(ctx, 15*time.Second)
}

// CloseStreams ends every open event stream, so that a graceful shutdown
// does not wait for browsers to hang up.
func (s *Server) CloseStreams() { s.hub.Close() }

// securityHeaders sets the dashboard's page headers; a form may be sent on
// to the session origin (the sign-in that leads to a session's handoff).
func securityHeaders(https bool, hs *handlers.Handlers) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "same-origin")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			if !strings.HasPrefix(c.Request().URL.Path, "/admin/river") {
				h.Set("X-Frame-Options", "DENY")
				h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"+formTo(hs))
			}
			if https {
				h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
			}
			return next(c)
		}
	}
}

// formTo names the session origin for the CSP's form-action, when set.
func formTo(hs *handlers.Handlers) string {
	if o := hs.Config.SessionOrigin; o != "" && !strings.ContainsAny(o, " ;'") {
		return " " + o
	}
	return ""
}

// metricsHandler serves the Prometheus registry.
func metricsHandler(g prometheus.Gatherer) echo.HandlerFunc {
	return echo.WrapHandler(promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
}
