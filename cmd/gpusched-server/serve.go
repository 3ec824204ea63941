package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"riverqueue.com/riverui"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/signin"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/migrations"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/static"
	"github.com/gpuscheduler/gpuscheduler/web"
)

func newServeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve [--dev] [--listen 127.0.0.1:8080]",
		Short: "Run the control plane: web dashboard, JSON API and background jobs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := commandSetup(cmd)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), cfg, logger, func(url string) {
				fmt.Fprintf(cmd.OutOrStdout(), "GPUScheduler is running at %s\n", url)
			})
		},
	}
	bindServeFlags(cmd.Flags())
	return cmd
}

// serve runs the control plane until ctx ends, then stops everything it
// started in reverse order: HTTP, simulated nodes, River, database.
func serve(ctx context.Context, cfg Config, logger *slog.Logger, ready func(url string)) error {
	devLogin := cfg.Dev && handlers.IsLoopbackListen(cfg.Listen)
	if cfg.Dev && !devLogin {
		logger.Warn("the dev sign-in is off: it only works on a loopback listen address", "listen", cfg.Listen)
	}
	keys, err := sessionKeys(cfg)
	if err != nil {
		return err
	}
	db, err := openDatabase(ctx, cfg, logger, true)
	if err != nil {
		return err
	}
	defer db.close(logger)

	now := time.Now
	sessions, err := web.NewSessions(keys, strings.HasPrefix(cfg.BaseURL, "https://"), cfg.SessionLifetime, now)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		jobs.NewQueueDepthCollector(db.Pool))
	reg.MustRegister(jobs.NewClusterCollector(db.DB)) // operations: cluster series for Grafana and alerts
	metrics := web.NewMetrics(reg)

	deps := &jobs.Deps{DB: db.DB, Logger: logger, Now: now,
		Config: jobs.Config{NodeDownAfter: cfg.NodeDownAfter, Workers: 10, Scoring: cfg.Scoring, Retention: cfg.Retention,
			Notify: cfg.Notify}}
	riverClient, err := jobs.NewClient(deps)
	if err != nil {
		return err
	}
	jobs.NewNodeExecutor(deps)
	if err := addRayExecutor(deps, cfg.Ray, logger); err != nil { // Ray dispatch
		return err
	}
	riverUI, err := riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(riverClient, nil),
		Logger:    logger.With("component", "riverui"),
		Prefix:    "/admin/river",
	})
	if err != nil {
		return fmt.Errorf("river ui: %w", err)
	}
	assets, err := static.New()
	if err != nil {
		return err
	}
	listener := models.NewListener(db.Pool, logger)
	h := &handlers.Handlers{
		DB: db.DB, Logger: logger, Now: now, Sessions: sessions, Migrations: migrations.New(db.Pool, logger), Asset: assets.Path,
		Listener: listener, CanRun: deps.Executors.Has, Lifecycle: deps.Lifecycle,
		Notifier: &models.Notifier{Pool: db.Pool, Logger: logger, Window: 50 * time.Millisecond},
		Config: handlers.Config{Version: version, Dev: cfg.Dev, DevLogin: devLogin, Admins: cfg.Admins, HeartbeatInterval: cfg.HeartbeatInterval,
			HoldTTL: cfg.HoldTTL, HoldLimit: cfg.HoldLimit, DefaultExecutor: cfg.DefaultExecutor,
			Bookings:           cfg.Bookings,
			NotifyAllowPrivate: cfg.Notify.AllowPrivateTargets, NotifyEmail: cfg.Notify.SMTP.Addr != ""},
	}
	// Notifications: the team's Slack channel from the configuration.
	if h.Secrets, err = models.NewSecretBox(keys); err != nil {
		return err
	}
	deps.Config.Notify.Secrets = h.Secrets
	if err := models.EnsureTeamChannel(ctx, db.DB.Bun, h.Secrets, models.KindSlack, cfg.SlackWebhookURL); err != nil {
		return err
	}
	// Sign-in providers: built now, discovered in the background (see below),
	// so a provider that is down or never answers cannot stop the server.
	h.Config.SignInPolicy = cfg.SignInPolicy
	if h.SignIn, err = signin.New(cfg.BaseURL, cfg.SignIn, nil); err != nil {
		return err
	}
	if h.Scoring, err = handlers.NewScoring(cfg.Scoring, cfg.ScoringTrusted, db.DB, reg); err != nil {
		return err
	}
	h.Scoring.Enqueue = deps.EnqueueScoringObserve
	srv := web.New(web.Options{
		Handlers: h, DB: db.DB, Listener: listener, Sessions: sessions, Hub: web.NewHub(listener, logger, metrics), Metrics: metrics,
		Gatherer: reg, Static: assets, RiverUI: riverUI, Logger: logger, Now: now,
		SecureCookies: strings.HasPrefix(cfg.BaseURL, "https://"), TrustedProxies: cfg.TrustedProxies,
	})

	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	httpServer := &http.Server{Handler: srv.Echo, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}

	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { listener.Run(bg) })
	wg.Go(func() { srv.Run(bg) })
	wg.Go(func() { h.SignIn.Run(bg) }) // discovery with timeouts and backoff
	kicker := &jobs.Kicker{Listener: listener, River: riverClient, Logger: logger}
	wg.Go(func() { kicker.Run(bg) })
	if err := riverClient.Start(bg); err != nil {
		stopBG()
		return fmt.Errorf("start river: %w", err)
	}
	if err := riverUI.Start(bg); err != nil {
		stopBG()
		return fmt.Errorf("start river ui: %w", err)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpServer.Serve(ln) }()

	url := cfg.BaseURL
	if cfg.BaseURL == "http://"+cfg.Listen {
		url = "http://" + ln.Addr().String()
	}
	stopSim := func() {}
	if cfg.Dev && cfg.SimNodes != "none" {
		if stopSim, err = startSimNodes(bg, db.DB, cfg.SimNodes, "http://"+ln.Addr().String(), cfg.DataDir, logger); err != nil {
			logger.Error("simulated nodes did not start", "err", err)
			stopSim = func() {}
		}
	}
	logger.Info("gpusched serving", "url", url, "dev", cfg.Dev, "version", version)
	ready(url)

	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case err := <-serveErr:
		logger.Error("http server stopped", "err", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	stopSim()
	srv.CloseStreams()
	if err := httpServer.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("http shutdown", "err", err)
	}
	if err := riverClient.Stop(shutdownCtx); err != nil {
		logger.Warn("river shutdown", "err", err)
	}
	stopBG()
	wg.Wait()
	logger.Info("stopped")
	return nil
}
