package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/signin"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
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

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		jobs.NewQueueDepthCollector(db.Pool))
	reg.MustRegister(jobs.NewClusterCollector(db.DB)) // cluster series for Grafana and alerts
	// Sign-in providers: built now, discovered in the background, so a
	// provider that is down or never answers cannot stop the server.
	providers, err := signin.New(cfg.BaseURL, cfg.SignIn, nil)
	if err != nil {
		return err
	}
	secure := strings.HasPrefix(cfg.BaseURL, "https://")
	cp, err := web.NewControlPlane(web.ControlPlaneOptions{
		DB: db.DB, Logger: logger, Now: time.Now, SessionKeys: keys, SessionLifetime: cfg.SessionLifetime, SecureCookies: secure,
		Handlers: handlers.Config{Version: version, Dev: cfg.Dev, DevLogin: devLogin, Admins: cfg.Admins, HeartbeatInterval: cfg.HeartbeatInterval,
			HoldTTL: cfg.HoldTTL, HoldLimit: cfg.HoldLimit, DefaultExecutor: cfg.DefaultExecutor, Bookings: cfg.Bookings,
			SignInPolicy: cfg.SignInPolicy, NotifyTargets: cfg.Notify.Targets(), NotifyEmail: cfg.Notify.SMTP.Addr != ""},
		Jobs:    jobs.Config{NodeDownAfter: cfg.NodeDownAfter, Workers: 10, Retention: cfg.Retention, Notify: cfg.Notify},
		Scoring: cfg.Scoring, ScoringTrusted: cfg.ScoringTrusted, SignIn: providers, Registry: reg, RiverUI: true,
		TrustedProxies: cfg.TrustedProxies,
		Executors:      func(deps *jobs.Deps) error { return addRayExecutor(deps, cfg.Ray, logger) },
	})
	if err != nil {
		return err
	}
	// Notifications: the team's Slack channel from the configuration.
	if err := models.EnsureTeamChannel(ctx, db.DB.Bun, cp.Handlers.Secrets, models.KindSlack, cfg.SlackWebhookURL); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	httpServer := &http.Server{Handler: cp.Web.Echo, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	dashboard := cfg.BaseURL
	if cfg.BaseURL == "http://"+cfg.Listen {
		dashboard = "http://" + ln.Addr().String()
	}
	stopSessions, err := startSessionOrigin(cfg, cp, dashboard, logger) // interactive sessions apart
	if err != nil {
		return err
	}
	if err := cp.Start(ctx); err != nil {
		cp.Stop(ctx)
		return err
	}
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpServer.Serve(ln) }()

	url := cfg.BaseURL
	if cfg.BaseURL == "http://"+cfg.Listen {
		url = "http://" + ln.Addr().String()
	}
	stopSim := func() {}
	if cfg.Dev && cfg.SimNodes != "none" {
		if stopSim, err = startSimNodes(bg, db.DB, cp.Deps.Lifecycle, cfg.SimNodes, cfg.SimMIG, cfg.SimShared, "http://"+ln.Addr().String(), cfg.DataDir, logger); err != nil {
			logger.Error("simulated nodes did not start", "err", err)
			stopSim = func() {}
		}
	}
	if cfg.Dev { // the console shows what happens, one line each
		ec := &eventConsole{db: db.DB, listener: cp.Listener, logger: logger}
		go ec.run(bg)
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
	stopSessions(shutdownCtx)
	cp.Web.CloseStreams() // so that the shutdown does not wait for browsers to hang up
	if err := httpServer.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("http shutdown", "err", err)
	}
	cp.Stop(shutdownCtx)
	logger.Info("stopped")
	return nil
}
