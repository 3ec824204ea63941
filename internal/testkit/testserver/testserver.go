// Package testserver starts the whole HTTP stack of the control plane (echo,
// middleware, handlers, SSE hub, LISTEN/NOTIFY listener) on a real test
// database, for tests that go through HTTP as clients do.
package testserver

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/netguard"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// Server is a running control plane over HTTP.
type Server struct {
	*httptest.Server
	DB     *models.DB
	Web    *web.Server
	Logger *slog.Logger
	Deps   *jobs.Deps // the background work's dependencies, River client included
	// Scoring is the scoring service; tests may set its Trusted networks before calling.
	Scoring *handlers.Scoring
	// Handlers are the server's handlers (read-only once it serves).
	Handlers *handlers.Handlers
	// SessionURL is the session origin's URL (Options.SessionOrigin; else empty).
	SessionURL string
}

// New starts a server on a fresh database; everything stops when t ends.
func New(t testing.TB) *Server { return NewWith(t, Options{}) }

// Options adjust the server before it starts serving.
type Options struct {
	// Configure may change the handlers (sign-in providers, policy) once the
	// server's URL is known and before the first request.
	Configure func(url string, h *handlers.Handlers)
	// SignInRate limits the sign-in routes; zero: practically unlimited, so
	// tests may sign in many users quickly.
	SignInRate web.RateLimit
	// SignInAccountRate limits sign-ins per account; zero: practically unlimited.
	SignInAccountRate web.RateLimit
	// RiverUI mounts the River UI at /admin/river, as serve does.
	RiverUI bool
	// Setup runs on the background work's dependencies before anything
	// starts (to register more executors).
	Setup func(*jobs.Deps)
	// DBMaxConns sizes the database pools; zero: 10, as for tests
	// (benchmarks ask for the server's models.DefaultMaxConns).
	DBMaxConns int32
	// QueryHooks are added to the bun handle before anything runs (adding
	// one later races with the background work's queries).
	QueryHooks []bun.QueryHook
	// Manual leaves the background work stopped: no River worker runs and
	// nothing triggers passes, so a test drives every pass itself
	// (jobs.RunPass with Server.Deps) and decides the order of events.
	Manual bool
	// Logs, when set, receives every line the server logs (debug level
	// and up), so a test can read what reached the log.
	Logs *Logs
	// SessionOrigin serves /s/{id}/… on a second listener (Server.SessionURL),
	// its own origin, as serve does with GPUSCHED_SESSION_ORIGIN.
	SessionOrigin bool
	// NotifyTargets is the policy for webhook and Slack targets; nil: every
	// address (receivers in tests listen on loopback).
	NotifyTargets *netguard.Policy
	// DB, when set, is the database the server uses: another server's, so
	// that the two are replicas over one database. Nil: a fresh database.
	DB *models.DB
}

// NewWith starts a server like New, with o.
func NewWith(t testing.TB, o Options) *Server {
	t.Helper()
	if o.SignInRate.Every == 0 {
		o.SignInRate = web.RateLimit{Every: time.Millisecond, Burst: 10000}
	}
	if o.SignInAccountRate.Every == 0 {
		o.SignInAccountRate = web.RateLimit{Every: time.Millisecond, Burst: 10000}
	}
	if o.DBMaxConns == 0 {
		o.DBMaxConns = 10
	}
	targets := netguard.Policy{AllowAll: true}
	if o.NotifyTargets != nil {
		targets = *o.NotifyTargets
	}
	db := o.DB
	if db == nil {
		db = testdb.NewConns(t, o.DBMaxConns)
	}
	for _, hook := range o.QueryHooks {
		db.Bun.AddQueryHook(hook)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if o.Logs != nil {
		var w io.Writer = o.Logs
		if testing.Verbose() {
			w = io.MultiWriter(o.Logs, testWriter{t})
		}
		logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	var executors func(*jobs.Deps) error
	if o.Setup != nil {
		executors = func(d *jobs.Deps) error { o.Setup(d); return nil }
	}
	// The same assembly as gpusched serve, with the tests' values.
	cp, err := web.NewControlPlane(web.ControlPlaneOptions{
		DB: db, Logger: logger, Now: time.Now, SessionKeys: [][]byte{bytes.Repeat([]byte("k"), 32)}, SessionLifetime: time.Hour,
		Handlers: handlers.Config{Version: "test", Dev: true, DevLogin: true, HeartbeatInterval: time.Second, NotifyTargets: targets},
		Jobs: jobs.Config{NodeDownAfter: time.Minute, Workers: 4,
			// Notifications: receivers in tests listen on loopback; retries are quick.
			Notify: jobs.NotifyConfig{AllowPrivateTargets: targets.AllowAll, AllowNetworks: targets.Allow, RetryBase: 50 * time.Millisecond, Timeout: 2 * time.Second,
				IdleEvery: 500 * time.Millisecond}},
		Scoring: scoring.DefaultConfig(), RiverUI: o.RiverUI, SignInRate: o.SignInRate, SignInAccountRate: o.SignInAccountRate,
		Executors: executors, Manual: o.Manual,
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(cp.Web.Echo)
	var sessionURL string
	if o.SessionOrigin {
		so := httptest.NewServer(cp.Web.SessionOrigin())
		t.Cleanup(so.Close)
		sessionURL = so.URL
		cp.Handlers.Config.SessionOrigin, cp.Handlers.Config.DashboardURL = so.URL, "http://"+hs.Listener.Addr().String()
	}
	if o.Configure != nil {
		o.Configure("http://"+hs.Listener.Addr().String(), cp.Handlers)
	}
	if err := cp.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs.Start()
	t.Cleanup(func() {
		cp.Web.CloseStreams()
		hs.Close()
		stopCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		cp.Stop(stopCtx)
	})
	waitListening(t, db, cp.Listener)
	return &Server{Server: hs, DB: db, Web: cp.Web, Logger: logger, Deps: cp.Deps, Scoring: cp.Handlers.Scoring, Handlers: cp.Handlers, SessionURL: sessionURL}
}

// waitListening returns once l delivers notifications: one sent before its
// LISTEN is lost, and tests act on the server as soon as New returns. It
// probes on the tokens channel, whose signals only make the server look
// again at tokens and sessions, so a probe answered late does no harm.
func waitListening(t testing.TB, db *models.DB, l *models.Listener) {
	t.Helper()
	probe, cancel := l.Subscribe(models.Topic(models.ChannelTokens))
	defer cancel()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if err := models.Signal(context.Background(), db.Bun, models.ChannelTokens, "listening?"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-probe:
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatal("the change listener delivered nothing within 10s")
}

// Logs collects what a server logs; safe for the server's goroutines to
// write while a test reads.
type Logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns everything logged so far.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
