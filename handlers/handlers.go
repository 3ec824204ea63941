// Package handlers holds GPUScheduler's HTTP handlers, pages and JSON API
// alike: each parses and validates its input, calls models (and jobs), and
// renders a templ view or JSON. One handler per file.
package handlers

import (
	"context"
	"log/slog"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/netguard"
	"github.com/gpuscheduler/gpuscheduler/internal/signin"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// Config is what handlers need to know of the server's configuration.
type Config struct {
	Version  string
	Dev      bool     // serve --dev
	DevLogin bool     // the loopback dev sign-in is on
	Admins   []string // emails that become admins on first sign-in
	// Sign-in (SSO): who may sign in through the providers of Handlers.SignIn.
	SignInPolicy      signin.Policy
	HeartbeatInterval time.Duration // told to node agents
	HoldTTL           time.Duration // how long a pre-warm hold keeps GPUs free (0: 15 minutes)
	HoldLimit         int           // live holds per user (0: 2)
	DefaultExecutor   string        // of a submitted job that names none ("": node)

	// Bookings calendar: per-user limits (zero values take the defaults in booking_limits.go).
	Bookings BookingLimits

	// NotifyTargets says which hosts webhook and Slack URLs may name: the
	// public internet and the networks the admin allowed (everything in dev
	// and tests).
	NotifyTargets netguard.Policy
	// NotifyEmail says an SMTP relay is configured, so email channels work.
	NotifyEmail bool
	// SessionOrigin is the origin (scheme://host[:port]) that serves
	// /s/{id}/… apart from the dashboard; empty: the dashboard serves them.
	// DashboardURL is the dashboard's base URL, where the session origin
	// sends a browser without its cookie.
	SessionOrigin, DashboardURL string
}

// Sessions signs browser users in and out (implemented by web).
type Sessions interface {
	// Login starts a server-side session; Logout ends the browser's session
	// everywhere (a copied cookie dies with it).
	Login(c echo.Context, userID int64) error
	Logout(c echo.Context) error
	// SetFlow and TakeFlow keep a sign-in in progress in a short-lived sealed cookie.
	SetFlow(c echo.Context, v any, ttl time.Duration) error
	TakeFlow(c echo.Context, v any) bool
}

// Migrations reports the schema's state for /readyz.
type Migrations interface {
	// Current reports whether the schema is the latest this binary knows.
	Current(ctx context.Context) (bool, error)
}

// Handlers carries the dependencies every handler shares. Time comes from
// Now so tests can set the clock.
type Handlers struct {
	DB         *models.DB
	Logger     *slog.Logger
	Now        func() time.Time
	Config     Config
	Sessions   Sessions
	Migrations Migrations
	Asset      func(name string) string
	// Listener delivers change signals (blocking allocate waits on it).
	Listener *models.Listener
	// CanRun reports whether jobs of an executor ("lease", "node", "ray")
	// can run on this server.
	CanRun func(executor string) bool
	// Lifecycle owns every job's life: cancels, releases and the node
	// agents' reports go through it.
	Lifecycle *models.Lifecycle

	// Signals sends change signals after the commit, from the hot paths (submissions).
	Signals *models.Signaler

	// Secrets seals notification channels' secrets and Slack URLs.
	Secrets *models.SecretBox
	// Handoff signs the moves from the dashboard to the session origin.
	Handoff *SessionHandoff

	// Scoring is the scoring service (/v1/score, /v1/observe); see scoring_service.go.
	Scoring *Scoring

	// SignIn are the configured identity providers (nil: none; the dev sign-in may still be on).
	SignIn *signin.Providers
	// SignInAccountLimit reports whether account may sign in once more now
	// (per-account rate limit; nil: no limit). Set by web.New.
	SignInAccountLimit func(account string) bool

	capCache capacityCache
	limits   limitCache
	// jobBatch sends the submissions that arrive together in one statement.
	jobBatch models.JobBatcher
}

// render writes a templ component as an HTML response. The components read
// the viewer's time zone from the context (localtime.FromContext).
func render(c echo.Context, status int, comp templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return comp.Render(localtime.WithZone(c.Request().Context(), viewerZone(c)), c.Response())
}

// Page builds the view model every full page starts from.
func (h *Handlers) Page(c echo.Context, title, nav string) views.Page {
	p := views.Page{Title: title, Nav: nav, Assets: h.Asset, DevMode: h.Config.Dev}
	if tok, ok := c.Get("csrf").(string); ok {
		p.CSRF = tok
	}
	if pr := PrincipalOf(c); pr != nil && pr.User != nil {
		p.User = &views.User{ID: pr.User.ID, Email: pr.User.Email, Name: pr.User.DisplayName(), Role: pr.User.Role}
		// Time zone (calview): the zone times are shown in, and whether the browser may set it.
		loc := viewerZone(c)
		p.User.TimeZone, p.User.ZoneAbbrev, p.User.ZoneUnset = loc.String(), localtime.Abbrev(h.Now(), loc), pr.User.TimeZone == ""
	}
	return p
}

// log returns the logger with the request's id, so a handler's lines join
// the request line they belong to.
func (h *Handlers) log(c echo.Context) *slog.Logger {
	return h.Logger.With("request_id", c.Response().Header().Get(echo.HeaderXRequestID))
}
