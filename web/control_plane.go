package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"riverqueue.com/riverui"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/signin"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/migrations"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/static"
)

// ControlPlaneOptions are what a control plane is built from: `gpusched
// serve` fills them from its configuration, the test server with its own
// values. Zero values take the defaults the fields name.
type ControlPlaneOptions struct {
	DB     *models.DB
	Logger *slog.Logger
	Now    func() time.Time
	// SessionKeys sign browser sessions and seal secrets (the first is
	// current); SessionLifetime bounds a session (zero: 30 days).
	SessionKeys     [][]byte
	SessionLifetime time.Duration
	// SecureCookies marks cookies Secure (an https base URL).
	SecureCookies bool
	// Handlers is what the handlers know of the configuration.
	Handlers handlers.Config
	// Jobs tunes the background work.
	Jobs jobs.Config
	// Scoring is the scoring model's configuration (zero: its defaults);
	// ScoringTrusted the networks that may call the bare /v1/score.
	Scoring        scoring.Config
	ScoringTrusted []netip.Prefix
	// SignIn are the identity providers (nil: none).
	SignIn *signin.Providers
	// Registry receives the metrics (nil: a private registry).
	Registry *prometheus.Registry
	// RiverUI mounts River's UI at /admin/river for admins.
	RiverUI bool
	// Sign-in rate limits and the reverse proxies trusted for client
	// addresses, as in Options.
	SignInRate, SignInAccountRate RateLimit
	TrustedProxies                []netip.Prefix
	// Executors registers executors beside the node agents' (Ray) before
	// anything starts.
	Executors func(*jobs.Deps) error
	// Manual leaves the background work stopped (no River worker, nothing
	// triggers passes): tests that drive every pass themselves.
	Manual bool
}

// ControlPlane is one replica of the control plane, assembled: the HTTP
// server with its handlers, the background work's dependencies and River
// client, the LISTEN/NOTIFY listener. Start runs it; Stop ends it.
type ControlPlane struct {
	Web      *Server
	Handlers *handlers.Handlers
	Deps     *jobs.Deps
	River    *river.Client[pgx.Tx]
	Listener *models.Listener

	logger  *slog.Logger
	manual  bool
	riverUI *riverui.Handler
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// NewControlPlane builds a control plane from o; nothing runs until Start.
func NewControlPlane(o ControlPlaneOptions) (*ControlPlane, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SessionLifetime == 0 {
		o.SessionLifetime = 30 * 24 * time.Hour
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	sessions, err := NewSessions(o.SessionKeys, o.SecureCookies, o.SessionLifetime, o.Now)
	if err != nil {
		return nil, err
	}
	metrics := NewMetrics(o.Registry)
	deps := &jobs.Deps{DB: o.DB, Logger: o.Logger, Now: o.Now, Config: o.Jobs}
	deps.Config.Scoring = o.Scoring
	riverClient, err := jobs.NewClient(deps)
	if err != nil {
		return nil, err
	}
	jobs.NewNodeExecutor(deps)
	if o.Executors != nil {
		if err := o.Executors(deps); err != nil {
			return nil, err
		}
	}
	assets, err := static.New()
	if err != nil {
		return nil, err
	}
	listener := models.NewListener(o.DB.Pool, o.Logger)
	h := &handlers.Handlers{DB: o.DB, Logger: o.Logger, Now: o.Now, Sessions: sessions, Asset: assets.Path,
		Migrations: migrations.New(o.DB.Pool, o.Logger), Listener: listener, CanRun: deps.Executors.Has, Lifecycle: deps.Lifecycle,
		Signals: &models.Signaler{Pool: o.DB.Pool, Logger: o.Logger, Window: 50 * time.Millisecond},
		Config:  o.Handlers, SignIn: o.SignIn}
	if h.Secrets, err = models.NewSecretBox(o.SessionKeys); err != nil {
		return nil, err
	}
	deps.Config.Notify.Secrets = h.Secrets
	h.Handoff = handlers.NewSessionHandoff(o.SessionKeys[0])
	if h.Scoring, err = handlers.NewScoring(o.Scoring, o.ScoringTrusted, o.DB, o.Registry); err != nil {
		return nil, err
	}
	h.Scoring.Enqueue = deps.EnqueueScoringObserve
	cp := &ControlPlane{Handlers: h, Deps: deps, River: riverClient, Listener: listener, logger: o.Logger, manual: o.Manual}
	wo := Options{Handlers: h, DB: o.DB, Listener: listener, Sessions: sessions, Hub: NewHub(listener, o.Logger, metrics),
		Metrics: metrics, Gatherer: o.Registry, Static: assets, Logger: o.Logger, Now: o.Now, SecureCookies: o.SecureCookies,
		SignInRate: o.SignInRate, SignInAccountRate: o.SignInAccountRate, TrustedProxies: o.TrustedProxies}
	if o.RiverUI {
		cp.riverUI, err = riverui.NewHandler(&riverui.HandlerOpts{Endpoints: riverui.NewEndpoints(riverClient, nil),
			Logger: o.Logger.With("component", "riverui"), Prefix: "/admin/river"})
		if err != nil {
			return nil, fmt.Errorf("web: river ui: %w", err)
		}
		wo.RiverUI = cp.riverUI
	}
	cp.Web = New(wo)
	return cp, nil
}

// Start runs the background work until Stop: the listener, the server's
// own upkeep, sign-in discovery, and (unless Manual) the kicker of passes
// and River's workers.
func (cp *ControlPlane) Start(ctx context.Context) error {
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	cp.cancel = cancel
	cp.wg.Go(func() { cp.Listener.Run(bg) })
	cp.wg.Go(func() { cp.Web.Run(bg) })
	if cp.Handlers.SignIn != nil {
		cp.wg.Go(func() { cp.Handlers.SignIn.Run(bg) }) // discovery with timeouts and backoff
	}
	if cp.riverUI != nil {
		if err := cp.riverUI.Start(bg); err != nil {
			return fmt.Errorf("web: start river ui: %w", err)
		}
	}
	if cp.manual {
		return nil
	}
	kicker := &jobs.Kicker{Listener: cp.Listener, River: cp.River, Logger: cp.logger}
	cp.wg.Go(func() { kicker.Run(bg) })
	if err := cp.River.Start(bg); err != nil {
		return fmt.Errorf("web: start river: %w", err)
	}
	return nil
}

// Stop ends open event streams, lets River finish its running jobs within
// ctx, and stops the background work.
func (cp *ControlPlane) Stop(ctx context.Context) {
	cp.Web.CloseStreams()
	if !cp.manual {
		if err := cp.River.Stop(ctx); err != nil {
			cp.logger.Warn("river shutdown", "err", err)
		}
	}
	if cp.cancel != nil {
		cp.cancel()
	}
	cp.wg.Wait()
}
