package node

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// sessionBook is the interactive sessions this agent serves: for each
// session's job, the loopback port its server listens on.
type sessionBook struct {
	mu   sync.Mutex
	byID map[int64]*sessionRun
	// ready reports a session's server answering to the control plane.
	ready func(ctx context.Context, jobID int64) error
}

// sessionRun is one session's server.
type sessionRun struct {
	jobID int64
	port  int
	strip bool
	done  chan struct{} // closed when the run ends
}

// freePort returns a loopback TCP port free now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("node: a free port for a session: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// sessionEnv returns s with the session's PORT (and its proxy path in
// GPUSCHED_SESSION_PATH) added to its environment, on a copy.
func sessionEnv(s *api.StartJob, port int) *api.StartJob {
	c := *s
	c.Env = make(map[string]string, len(s.Env)+2)
	for k, v := range s.Env {
		c.Env[k] = v
	}
	c.Env["PORT"] = strconv.Itoa(port)
	c.Env["GPUSCHED_SESSION_PATH"] = api.SessionPath(s.JobID)
	return &c
}

// add records a started session and waits, in the background, until its
// server answers at probe (or the run ends), then reports it ready.
func (b *sessionBook) add(ctx context.Context, jobID int64, port int, s *api.SessionStart) *sessionRun {
	sr := &sessionRun{jobID: jobID, port: port, strip: s.StripPrefix, done: make(chan struct{})}
	b.mu.Lock()
	if b.byID == nil {
		b.byID = map[int64]*sessionRun{}
	}
	b.byID[jobID] = sr
	b.mu.Unlock()
	go b.probe(ctx, sr, s.ProbePath)
	return sr
}

// get returns the session of job id, if it runs here.
func (b *sessionBook) get(id int64) (*sessionRun, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	sr, ok := b.byID[id]
	return sr, ok
}

// remove forgets the session of job id; its run ended.
func (b *sessionBook) remove(id int64) {
	b.mu.Lock()
	sr, ok := b.byID[id]
	delete(b.byID, id)
	b.mu.Unlock()
	if ok {
		close(sr.done)
	}
}

// probe polls the server until it answers HTTP at path, then reports it
// ready (retrying the report until the control plane has it).
func (b *sessionBook) probe(ctx context.Context, sr *sessionRun, path string) {
	client := &http.Client{Timeout: 2 * time.Second}
	url := "http://127.0.0.1:" + strconv.Itoa(sr.port) + path
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	answered := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-sr.done:
			return
		case <-tick.C:
		}
		if !answered {
			resp, err := client.Get(url)
			if err != nil {
				continue
			}
			resp.Body.Close()
			answered = true
		}
		if b.ready == nil || b.ready(ctx, sr.jobID) == nil {
			return
		}
	}
}
