package main

import (
	"fmt"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/cli"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/signin"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Config is everything `gpusched` reads from its flags and environment,
// read once at start. A flag wins over its variable, which wins over the
// default. A secret may also come from VAR_FILE (the file's content, trimmed).
type Config struct {
	// DatabaseURL is PostgreSQL's connection string (DATABASE_URL or
	// GPUSCHED_DATABASE_URL, secret). Empty: the embedded server under DataDir.
	DatabaseURL string
	// DataDir holds local state in development: the embedded PostgreSQL
	// (DataDir/postgres) and the dev session key (GPUSCHED_DATA_DIR, default ".data").
	DataDir string
	// Listen is the HTTP listen address (--listen, GPUSCHED_LISTEN, default 127.0.0.1:8080).
	Listen string
	// BaseURL is the address people and agents reach the server at
	// (GPUSCHED_BASE_URL, default http://LISTEN). https turns on Secure cookies and HSTS.
	BaseURL string
	// Dev turns on development mode (--dev, GPUSCHED_DEV): the embedded
	// database, simulated nodes and the loopback-only dev sign-in.
	Dev bool
	// SessionKeys seal browser session cookies (GPUSCHED_SESSION_KEY, secret,
	// comma-separated; the first seals, all open, for rotation). Required
	// outside dev; in dev a key is generated and kept in DataDir.
	SessionKeys []string
	// SessionLifetime is how long a browser session lasts (GPUSCHED_SESSION_LIFETIME, default 168h).
	SessionLifetime time.Duration
	// Admins are emails made admin when they first sign in (GPUSCHED_ADMINS, comma-separated).
	Admins []string
	// LogLevel is debug, info, warn or error (GPUSCHED_LOG_LEVEL, default info).
	LogLevel string
	// LogFormat is json, text or auto: text on a terminal, else JSON (GPUSCHED_LOG_FORMAT).
	LogFormat string
	// HeartbeatInterval is how often node agents are told to report (GPUSCHED_HEARTBEAT_INTERVAL, default 5s; 2s in dev).
	HeartbeatInterval time.Duration
	// NodeDownAfter marks a node down after this long without a heartbeat (GPUSCHED_NODE_DOWN_AFTER, default 30s).
	NodeDownAfter time.Duration
	// SimNodes is the simulated cluster `serve --dev` runs in process
	// (--sim-nodes, GPUSCHED_SIM_NODES, default "2x8:H100-80GB"; "none" for none).
	SimNodes string
	// SimMIG splits the first simulated node's GPUs into MIG devices with
	// the model's real profiles (--sim-mig, GPUSCHED_SIM_MIG, e.g.
	// "0-3:7x1g.10gb"; default none: all whole); the other nodes stay whole.
	SimMIG string
	// SimShared shares the last simulated node's GPUs into slots for share
	// jobs (--sim-shared, GPUSCHED_SIM_SHARED, e.g. "0-1:4"; default none).
	SimShared string
	// DBMaxConns caps the connection pool (GPUSCHED_DB_MAX_CONNS, default 20).
	DBMaxConns int
	// ShutdownTimeout bounds a graceful stop (GPUSCHED_SHUTDOWN_TIMEOUT, default 20s).
	ShutdownTimeout time.Duration
	// HoldTTL is how long a client agent's pre-warm hold keeps GPUs free (GPUSCHED_HOLD_TTL, default 15m).
	HoldTTL time.Duration
	// SessionOrigin is where interactive sessions' /s/{id}/… are served,
	// apart from the dashboard so that a notebook's script cannot act as
	// its viewer (GPUSCHED_SESSION_ORIGIN, e.g. https://sessions.example.com;
	// in dev http://SESSION_LISTEN). Empty: the dashboard serves them (a
	// warning at start). SessionListen is the listen address that serves it
	// (GPUSCHED_SESSION_LISTEN; in dev the port after LISTEN's).
	SessionOrigin, SessionListen string
	// HoldLimit is how many live holds one user may have (GPUSCHED_HOLD_LIMIT, default 2).
	HoldLimit int
	// Bookings are the calendar's per-user limits: GPUSCHED_BOOKING_MAX_GPUS (GPUs in one
	// booking, default 8), GPUSCHED_BOOKING_MAX_AHEAD (how far ahead one may start, 720h),
	// GPUSCHED_BOOKING_MAX_LENGTH (72h) and GPUSCHED_BOOKING_MAX_LIVE (upcoming and
	// active bookings per user, 5).
	Bookings handlers.BookingLimits
	// Scoring is the scoring service's model: SCHEDULER_LAMBDA_UNCERTAINTY (λ, default 0.3),
	// SCHEDULER_BETA_EXPLORATION (β, 0.7), SCHEDULER_GAMMA_INTERFERENCE (γ, 0),
	// SCHEDULER_EXPLORATION_CAP (0.25) and SCHEDULER_ENABLE_INTERFERENCE (false).
	Scoring scoring.Config
	// ScoringTrusted are networks whose clients may call the bare /v1/score and
	// /v1/observe without a token (GPUSCHED_SCORING_TRUSTED_NETWORKS, CIDRs, comma-separated;
	// default none: a personal token is always required).
	ScoringTrusted []netip.Prefix
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the
	// client (GPUSCHED_TRUSTED_PROXIES, CIDRs or addresses, comma-separated;
	// default none: the client is the connection's peer). The sign-in rate
	// limit and the audit log use that client address.
	TrustedProxies []netip.Prefix
	// Sign-in (see signin_config.go and the README's Sign-in section): the
	// identity providers (GPUSCHED_OIDC_*, GPUSCHED_GITHUB_*, GPUSCHED_GOOGLE_*)
	// and who may join (GPUSCHED_ALLOWED_EMAIL_DOMAINS, GPUSCHED_ALLOWED_EMAILS).
	SignIn       []signin.ProviderConfig
	SignInPolicy signin.Policy
	// Ray dispatch: the Ray cluster (GPUSCHED_RAY_*, ray_config.go) and
	// the executor of a job that names none (GPUSCHED_DEFAULT_EXECUTOR).
	Ray             RayConfig
	DefaultExecutor string

	// Usage history retention: Retention.Raw is GPUSCHED_TELEMETRY_RAW_RETENTION
	// (telemetry every 10 s: mean and peak of the heartbeats, default 48h), Retention.Minute
	// GPUSCHED_TELEMETRY_MINUTE_RETENTION (1-minute roll-ups, default 840h = 35
	// days), Retention.Hour GPUSCHED_TELEMETRY_HOUR_RETENTION (1-hour roll-ups
	// and queue samples, default 9600h = 400 days).
	Retention models.Retention

	// Notifications (notify_config.go): delivery settings and the team's Slack channel.
	Notify          jobs.NotifyConfig
	SlackWebhookURL string
}

// bindServeFlags declares the flags of `serve` whose values override the environment.
func bindServeFlags(fs *pflag.FlagSet) {
	fs.Bool("dev", false, "development mode: embedded PostgreSQL, simulated nodes, loopback dev sign-in (env GPUSCHED_DEV)")
	fs.String("listen", "", "listen address (env GPUSCHED_LISTEN, default 127.0.0.1:8080)")
	fs.String("sim-nodes", "", `simulated cluster in --dev, e.g. "2x8:H100-80GB", or "none" (env GPUSCHED_SIM_NODES)`)
	fs.String("sim-mig", "", `with --sim-nodes: split the first simulated node's GPUs into MIG devices, e.g. "0-3:7x1g.10gb"; the others stay whole (env GPUSCHED_SIM_MIG)`)
	fs.String("sim-shared", "", `with --sim-nodes: share the last simulated node's GPUs into slots for --gpu-share jobs, e.g. "0-1:4" (env GPUSCHED_SIM_SHARED)`)
}

// loadConfig reads the environment (through getenv) and the flags that were set.
func loadConfig(fs *pflag.FlagSet, getenv func(string) string) (Config, error) {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	str := func(flag string, def string, vars ...string) string {
		if fs != nil {
			if f := fs.Lookup(flag); f != nil && f.Changed {
				return f.Value.String()
			}
		}
		for _, v := range vars {
			if val, err := cli.SecretOrValue(v, getenv); err != nil {
				fail("%v", err)
			} else if val != "" {
				return val
			}
		}
		return def
	}
	dur := func(name string, def time.Duration) time.Duration {
		s := getenv(name)
		if s == "" {
			return def
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			fail("%s=%q is not a positive duration like 30s or 5m", name, s)
			return def
		}
		return d
	}
	c := Config{
		DatabaseURL:       str("", "", "DATABASE_URL", "GPUSCHED_DATABASE_URL"),
		DataDir:           str("", ".data", "GPUSCHED_DATA_DIR"),
		Listen:            str("listen", "127.0.0.1:8080", "GPUSCHED_LISTEN"),
		BaseURL:           str("", "", "GPUSCHED_BASE_URL"),
		SessionKeys:       splitList(str("", "", "GPUSCHED_SESSION_KEY")),
		SessionLifetime:   dur("GPUSCHED_SESSION_LIFETIME", 7*24*time.Hour),
		Admins:            splitList(strings.ToLower(str("", "", "GPUSCHED_ADMINS"))),
		LogLevel:          str("", "info", "GPUSCHED_LOG_LEVEL"),
		LogFormat:         str("", "auto", "GPUSCHED_LOG_FORMAT"),
		HeartbeatInterval: dur("GPUSCHED_HEARTBEAT_INTERVAL", 5*time.Second),
		NodeDownAfter:     dur("GPUSCHED_NODE_DOWN_AFTER", 30*time.Second),
		SimNodes:          str("sim-nodes", "2x8:H100-80GB", "GPUSCHED_SIM_NODES"),
		SimMIG:            str("sim-mig", "", "GPUSCHED_SIM_MIG"),
		SimShared:         str("sim-shared", "", "GPUSCHED_SIM_SHARED"),
		ShutdownTimeout:   dur("GPUSCHED_SHUTDOWN_TIMEOUT", 20*time.Second),
		HoldTTL:           dur("GPUSCHED_HOLD_TTL", 15*time.Minute),
	}
	// Usage history retention.
	keep := models.DefaultRetention()
	c.Retention = models.Retention{Raw: dur("GPUSCHED_TELEMETRY_RAW_RETENTION", keep.Raw),
		Minute: dur("GPUSCHED_TELEMETRY_MINUTE_RETENTION", keep.Minute), Hour: dur("GPUSCHED_TELEMETRY_HOUR_RETENTION", keep.Hour)}
	if c.Retention.Minute < 2*time.Hour || c.Retention.Raw < 10*time.Minute {
		// Hours are rolled up from minutes, minutes from raw samples: each must outlive the next run.
		fail("GPUSCHED_TELEMETRY_MINUTE_RETENTION must be at least 2h and GPUSCHED_TELEMETRY_RAW_RETENTION at least 10m")
	}
	devStr := str("dev", "false", "GPUSCHED_DEV")
	dev, err := strconv.ParseBool(devStr)
	if err != nil {
		fail("GPUSCHED_DEV=%q is not true or false", devStr)
	}
	c.Dev = dev
	if dev && getenv("GPUSCHED_HEARTBEAT_INTERVAL") == "" {
		c.HeartbeatInterval = 2 * time.Second // a livelier simulated cluster
	}
	maxConns := str("", strconv.Itoa(models.DefaultMaxConns), "GPUSCHED_DB_MAX_CONNS")
	if c.DBMaxConns, err = strconv.Atoi(maxConns); err != nil || c.DBMaxConns < 2 {
		fail("GPUSCHED_DB_MAX_CONNS=%q must be a number ≥ 2", maxConns)
	}
	c.Scoring, c.ScoringTrusted = scoringConfig(getenv, fail)
	c.TrustedProxies = networks(getenv, "GPUSCHED_TRUSTED_PROXIES", fail)
	c.SignIn, c.SignInPolicy = signInConfig(getenv, c.Dev, fail)
	c.SignInPolicy.Admins = c.Admins
	holdLimit := str("", "2", "GPUSCHED_HOLD_LIMIT")
	if c.HoldLimit, err = strconv.Atoi(holdLimit); err != nil || c.HoldLimit < 1 {
		fail("GPUSCHED_HOLD_LIMIT=%q must be a number ≥ 1", holdLimit)
	}
	c.Ray, c.DefaultExecutor = rayConfig(str, dur, fail) // Ray dispatch
	// Bookings calendar limits.
	c.Bookings = handlers.BookingLimits{MaxAhead: dur("GPUSCHED_BOOKING_MAX_AHEAD", 30*24*time.Hour),
		MaxLength: dur("GPUSCHED_BOOKING_MAX_LENGTH", 72*time.Hour)}
	for _, v := range []struct {
		env, def string
		dst      *int
	}{{"GPUSCHED_BOOKING_MAX_GPUS", "8", &c.Bookings.MaxGPUs}, {"GPUSCHED_BOOKING_MAX_LIVE", "5", &c.Bookings.MaxLive}} {
		s := str("", v.def, v.env)
		if *v.dst, err = strconv.Atoi(s); err != nil || *v.dst < 1 {
			fail("%s=%q must be a number ≥ 1", v.env, s)
		}
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Listen
	}
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fail("GPUSCHED_BASE_URL=%q must be an http(s) URL", c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	c.SessionOrigin, c.SessionListen = sessionOriginConfig(str, fail, c.Dev, c.Listen, c.BaseURL)
	c.Notify, c.SlackWebhookURL = notifyConfig(str, dur, getenv, fail, c.Dev, c.BaseURL) // notifications
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		fail("GPUSCHED_LOG_LEVEL=%q must be debug, info, warn or error", c.LogLevel)
	}
	switch c.LogFormat {
	case "auto", "json", "text":
	default:
		fail("GPUSCHED_LOG_FORMAT=%q must be auto, json or text", c.LogFormat)
	}
	if abs, err := filepath.Abs(c.DataDir); err == nil {
		c.DataDir = abs
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
