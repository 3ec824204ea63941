package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Local serves the local-scheduler API (spec/local-scheduler.md) for
// processes on this host — GET /status, GET /jobs, POST /acquire — with that
// document's shapes, so its srun script works unchanged. Requests become
// lease jobs of the control plane pinned to this node, which the agent
// watches and renews (lease_watch.go).
type Local struct {
	Agent   *Agent
	Port    int
	Version string
	Logger  *slog.Logger

	started time.Time
}

// Handler returns the local API's routes.
func (l *Local) Handler() http.Handler {
	if l.started.IsZero() {
		l.started = time.Now()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", l.status)
	mux.HandleFunc("GET /jobs", l.jobs)
	mux.HandleFunc("POST /acquire", l.acquireHandler)
	return mux
}

// Serve answers on ln until ctx ends.
func (l *Local) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: l.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("node: local API: %w", err)
	}
	return nil
}

func (l *Local) status(w http.ResponseWriter, r *http.Request) {
	total, _ := l.gpuCount(r.Context())
	allocated := []int{}
	running, queued := 0, 0
	all := l.Agent.leases.snapshot()
	for _, x := range all {
		switch x.Status {
		case leaseRunning:
			running++
			for _, g := range strings.Split(x.GPUs, ",") {
				if n, err := strconv.Atoi(g); err == nil {
					allocated = append(allocated, n)
				}
			}
		case leaseQueued:
			queued++
		}
	}
	allocated = append(allocated, l.Agent.runningGPUs()...)
	sort.Ints(allocated)
	writeJSON(w, http.StatusOK, map[string]any{
		"service": "local-gpu-scheduler", "implementation": "gpusched node", "version": l.Version,
		"uptime_s": int(time.Since(l.started).Seconds()), "port": l.Port, "gpus_total": total,
		"gpus_allocated": allocated, "jobs_running": running, "jobs_queued": queued, "jobs_total": len(all),
		"node_id": l.Agent.NodeID(),
	})
}

func (l *Local) jobs(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, l.Agent.leases.snapshot())
}

func (l *Local) acquireHandler(w http.ResponseWriter, r *http.Request) {
	var req api.AcquireRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, api.Error{Message: "the body must be a JSON object like {\"pid\": 1234, \"num_gpus\": 1}: " + err.Error()})
		return
	}
	ls, err := l.acquire(r.Context(), req)
	if err != nil {
		var he *httpError
		if errors.As(err, &he) {
			writeJSON(w, he.status, api.Error{Message: he.msg})
		} else if r.Context().Err() == nil {
			writeJSON(w, http.StatusInternalServerError, api.Error{Message: err.Error()})
		}
		return
	}
	l.Logger.Info("node: GPUs granted to a local process", "pid", ls.PID, "owner", ls.Owner, "gpus", ls.GPUs, "job", ls.ID)
	writeJSON(w, http.StatusOK, api.AcquireGrant{JobID: ls.ID, GPUs: ls.GPUs})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
