package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The console keeps one line per event: River's producer counts, its
// migrations, the node agents' long-polls and heartbeats, and (in dev)
// the browser's page loads go to debug; warnings, failed requests and the
// events stay at info. With debug on, nothing is lost.
func TestQuietLogDemotesNoise(t *testing.T) {
	t.Parallel()
	logAll := func(l *slog.Logger) {
		river := l.With("component", "river")
		river.Info("producer: Producer job counts", "num_completed_jobs", 3, "queue", "default")
		river.Info("River client started", "client_id", "x")
		river.Warn("River is slow", "queue", "default")
		l.Info("rivermigrate.Migrator[v5.Tx]: Applied migration", "version", 1)
		l.Info("migration applied", "version", 2, "name", "queue")
		l.Info("request", "method", "GET", "route", "/api/v1/nodes/:id/commands", "status", 200)
		l.Info("request", "method", "POST", "route", "/api/v1/nodes/:id/heartbeat", "status", 200)
		l.Info("request", "method", "POST", "route", "/api/v1/nodes/:id/heartbeat", "status", 500)
		l.Info("request", "method", "GET", "route", "/queue", "status", 200)
		l.Info("request", "method", "POST", "route", "/api/v1/queue/submit", "status", 422)
		l.Info("node registered", "node", "sim-node-1")
		sim := l.With("sim_node", "sim-node-1")
		sim.Info("node agent registered", "node", "sim-node-1")
		sim.Info("node: job started", "job", 1)
		l.Info("job 1 (train) submitted by ana@example.com: 2 GPUs", "job", 1)
	}
	for name, tc := range map[string]struct {
		level string
		dev   bool
		want  []string
	}{
		"dev console": {"info", true, []string{
			"River is slow", "request /api/v1/nodes/:id/heartbeat 500", "request /api/v1/queue/submit 422",
			"node registered", "job 1 (train) submitted by ana@example.com: 2 GPUs"}},
		"production keeps page requests": {"info", false, []string{
			"River is slow", "request /api/v1/nodes/:id/heartbeat 500", "request /queue 200", "request /api/v1/queue/submit 422",
			"node registered", "job 1 (train) submitted by ana@example.com: 2 GPUs"}},
		"debug shows everything": {"debug", true, nil},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			logAll(newLogger(&buf, tc.level, "json", tc.dev))
			var got []string
			debug := 0
			for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				if strings.Contains(line, `"level":"DEBUG"`) {
					debug++
					continue
				}
				got = append(got, logWords(line))
			}
			if tc.want == nil {
				if total := debug + len(got); total != 14 || debug == 0 {
					t.Errorf("with debug on: %d lines (%d at debug), want all 14 with the noise at debug", total, debug)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines at info and above (-want +got):\n%s", diff)
			}
		})
	}
}

// logWords is a JSON log line as "msg [route status]".
func logWords(line string) string {
	field := func(key string) string {
		_, rest, ok := strings.Cut(line, `"`+key+`":`)
		if !ok {
			return ""
		}
		rest = strings.TrimPrefix(rest, `"`)
		end := strings.IndexAny(rest, `",}`)
		return rest[:end]
	}
	s := field("msg")
	if s == "request" {
		s += " " + field("route") + " " + field("status")
	}
	return s
}
