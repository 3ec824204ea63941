package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/web"
)

// sessionOriginConfig reads GPUSCHED_SESSION_ORIGIN and
// GPUSCHED_SESSION_LISTEN. In dev both default to the port after listen's,
// so the separate origin is exercised; elsewhere an origin needs its
// listen address, and none keeps sessions on the dashboard's origin.
func sessionOriginConfig(str func(string, string, ...string) string, fail func(string, ...any), dev bool, listen, base string) (string, string) {
	origin := strings.TrimRight(str("", "", "GPUSCHED_SESSION_ORIGIN"), "/")
	ln := str("", "", "GPUSCHED_SESSION_LISTEN")
	explicit := origin != ""
	if dev && ln == "" && origin == "" {
		host, port, err := net.SplitHostPort(listen)
		if p, perr := strconv.Atoi(port); err == nil && perr == nil {
			if p != 0 {
				p++
			}
			ln = net.JoinHostPort(host, strconv.Itoa(p))
			origin = "http://" + ln // completed once listening when the port is 0
		}
	}
	if origin == "" {
		if ln != "" {
			fail("GPUSCHED_SESSION_LISTEN=%q needs GPUSCHED_SESSION_ORIGIN, the URL browsers reach it at", ln)
		}
		return "", ""
	}
	if u, err := url.Parse(origin); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		fail("GPUSCHED_SESSION_ORIGIN=%q must be an origin like https://sessions.example.com", origin)
	} else if b, err := url.Parse(base); explicit && err == nil && strings.EqualFold(b.Host, u.Host) && b.Scheme == u.Scheme {
		fail("GPUSCHED_SESSION_ORIGIN=%q must differ from GPUSCHED_BASE_URL's origin", origin)
	}
	if ln == "" {
		fail("GPUSCHED_SESSION_ORIGIN=%q needs GPUSCHED_SESSION_LISTEN, the address that serves it (behind the proxy for its host)", origin)
	}
	return origin, ln
}

// startSessionOrigin serves the session origin of cp on cfg.SessionListen
// and tells the handlers where it is and where the dashboard is; without one it warns that sessions
// share the dashboard's origin. The returned stop shuts it down.
func startSessionOrigin(cfg Config, cp *web.ControlPlane, dashboard string, logger *slog.Logger) (stop func(context.Context), err error) {
	if cfg.SessionOrigin == "" {
		logger.Warn("interactive sessions are served on the dashboard's origin: script in a notebook could act as whoever opens it; set GPUSCHED_SESSION_ORIGIN and GPUSCHED_SESSION_LISTEN (see the README)")
		return func(context.Context) {}, nil
	}
	ln, err := net.Listen("tcp", cfg.SessionListen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for the session origin: %w", cfg.SessionListen, err)
	}
	origin := cfg.SessionOrigin
	if origin == "http://"+cfg.SessionListen {
		origin = "http://" + ln.Addr().String()
	}
	cp.Handlers.Config.SessionOrigin, cp.Handlers.Config.DashboardURL = origin, dashboard
	srv := &http.Server{Handler: cp.Web.SessionOrigin(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("session origin stopped", "err", err)
		}
	}()
	logger.Info("interactive sessions served apart", "origin", origin, "listen", ln.Addr().String())
	return func(ctx context.Context) { _ = srv.Shutdown(ctx) }, nil
}
