package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuscheduler/gpuscheduler/models"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "session")
	if err := os.WriteFile(secret, []byte("  from-a-file-0123456789abcdef0123456789  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		env   map[string]string
		flags []string
		check func(t *testing.T, c Config)
		err   string
	}{
		"defaults": {
			check: func(t *testing.T, c Config) {
				if c.Listen != "127.0.0.1:8080" || c.BaseURL != "http://127.0.0.1:8080" || c.Dev || c.HeartbeatInterval != 5*time.Second || c.DBMaxConns != 20 {
					t.Fatalf("%+v", c)
				}
			},
		},
		"env then flag wins": {
			env:   map[string]string{"GPUSCHED_LISTEN": "127.0.0.1:9000", "GPUSCHED_DEV": "true"},
			flags: []string{"--listen", "127.0.0.1:9001"},
			check: func(t *testing.T, c Config) {
				if c.Listen != "127.0.0.1:9001" || !c.Dev || c.HeartbeatInterval != 2*time.Second {
					t.Fatalf("%+v", c)
				}
			},
		},
		"secret from a file": {
			env: map[string]string{"GPUSCHED_SESSION_KEY_FILE": secret, "DATABASE_URL_FILE": secret},
			check: func(t *testing.T, c Config) {
				if len(c.SessionKeys) != 1 || c.SessionKeys[0] != "from-a-file-0123456789abcdef0123456789" || c.DatabaseURL != c.SessionKeys[0] {
					t.Fatalf("%+v", c)
				}
			},
		},
		"key rotation list and admins": {
			env: map[string]string{"GPUSCHED_SESSION_KEY": "new, old", "GPUSCHED_ADMINS": "Ana@Example.com, bo@example.com"},
			check: func(t *testing.T, c Config) {
				if strings.Join(c.SessionKeys, "|") != "new|old" || strings.Join(c.Admins, "|") != "ana@example.com|bo@example.com" {
					t.Fatalf("%+v", c)
				}
			},
		},
		"usage history retention": {
			env: map[string]string{"GPUSCHED_TELEMETRY_RAW_RETENTION": "6h", "GPUSCHED_TELEMETRY_HOUR_RETENTION": "2160h"},
			check: func(t *testing.T, c Config) {
				want := models.Retention{Raw: 6 * time.Hour, Minute: models.DefaultRetention().Minute, Hour: 90 * 24 * time.Hour}
				if c.Retention != want {
					t.Fatalf("retention %+v, want %+v", c.Retention, want)
				}
			},
		},
		"notify allow-list": {
			env: map[string]string{"GPUSCHED_NOTIFY_ALLOW_NETWORKS": "10.20.0.0/16, 192.168.7.9"},
			check: func(t *testing.T, c Config) {
				p := c.Notify.Targets()
				if p.AllowAll || p.CheckHost("10.20.1.2") != nil || p.CheckHost("192.168.7.9") != nil || p.CheckHost("192.168.7.10") == nil || p.CheckHost("127.0.0.1") == nil {
					t.Fatalf("targets %+v", p)
				}
			},
		},
		"session origin: dev takes the next port": {
			env: map[string]string{"GPUSCHED_DEV": "true"},
			check: func(t *testing.T, c Config) {
				if c.SessionOrigin != "http://127.0.0.1:8081" || c.SessionListen != "127.0.0.1:8081" {
					t.Fatalf("session origin %q on %q", c.SessionOrigin, c.SessionListen)
				}
			},
		},
		"session origin: production default none": {
			check: func(t *testing.T, c Config) {
				if c.SessionOrigin != "" || c.SessionListen != "" {
					t.Fatalf("session origin %q on %q", c.SessionOrigin, c.SessionListen)
				}
			},
		},
		"session origin set": {
			env: map[string]string{"GPUSCHED_SESSION_ORIGIN": "https://sessions.example.com/", "GPUSCHED_SESSION_LISTEN": "127.0.0.1:8090"},
			check: func(t *testing.T, c Config) {
				if c.SessionOrigin != "https://sessions.example.com" || c.SessionListen != "127.0.0.1:8090" {
					t.Fatalf("session origin %q on %q", c.SessionOrigin, c.SessionListen)
				}
			},
		},
		"session origin without listen":  {env: map[string]string{"GPUSCHED_SESSION_ORIGIN": "https://sessions.example.com"}, err: "GPUSCHED_SESSION_LISTEN"},
		"session origin with a path":     {env: map[string]string{"GPUSCHED_SESSION_ORIGIN": "https://example.com/s", "GPUSCHED_SESSION_LISTEN": ":8090"}, err: "must be an origin"},
		"session origin the dashboard's": {env: map[string]string{"GPUSCHED_SESSION_ORIGIN": "http://127.0.0.1:8080", "GPUSCHED_SESSION_LISTEN": ":8090"}, err: "must differ"},
		"bad notify allow-list":          {env: map[string]string{"GPUSCHED_NOTIFY_ALLOW_NETWORKS": "office"}, err: "GPUSCHED_NOTIFY_ALLOW_NETWORKS"},
		"retention too short":            {env: map[string]string{"GPUSCHED_TELEMETRY_MINUTE_RETENTION": "30m"}, err: "at least 2h"},
		"bad retention":                  {env: map[string]string{"GPUSCHED_TELEMETRY_MINUTE_RETENTION": "-1h"}, err: "GPUSCHED_TELEMETRY_MINUTE_RETENTION"},
		"both value and file":            {env: map[string]string{"GPUSCHED_SESSION_KEY": "x", "GPUSCHED_SESSION_KEY_FILE": secret}, err: "not both"},
		"missing file":                   {env: map[string]string{"GPUSCHED_SESSION_KEY_FILE": "/nonexistent/key"}, err: "GPUSCHED_SESSION_KEY_FILE"},
		"bad duration":                   {env: map[string]string{"GPUSCHED_NODE_DOWN_AFTER": "soon"}, err: "GPUSCHED_NODE_DOWN_AFTER"},
		"bad bool":                       {env: map[string]string{"GPUSCHED_DEV": "yes please"}, err: "GPUSCHED_DEV"},
		"bad base url":                   {env: map[string]string{"GPUSCHED_BASE_URL": "ftp://x"}, err: "GPUSCHED_BASE_URL"},
		"bad log level":                  {env: map[string]string{"GPUSCHED_LOG_LEVEL": "loud"}, err: "GPUSCHED_LOG_LEVEL"},
		"several errors at once":         {env: map[string]string{"GPUSCHED_LOG_LEVEL": "loud", "GPUSCHED_DB_MAX_CONNS": "1"}, err: "GPUSCHED_DB_MAX_CONNS"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
			bindServeFlags(fs)
			if err := fs.Parse(tc.flags); err != nil {
				t.Fatal(err)
			}
			c, err := loadConfig(fs, envOf(tc.env))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}
