package node

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	// ready reports a session's server answering to the control plane,
	// with its last activity when the server tells it (Jupyter).
	ready func(ctx context.Context, jobID int64, lastActivity *time.Time) error
	// every is how often a Jupyter server's activity is read (0: 10 s).
	every time.Duration
}

// sessionRun is one session's server.
type sessionRun struct {
	jobID int64
	port  int
	strip bool
	kind  string
	done  chan struct{} // closed when the run ends
}

// freeLoopbackPort returns a loopback TCP port free now.
func freeLoopbackPort() (int, error) {
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
	sr := &sessionRun{jobID: jobID, port: port, strip: s.StripPrefix, kind: s.Kind, done: make(chan struct{})}
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
// ready (retrying the report until the control plane has it); for Jupyter
// it then reports the server's own last activity as it changes.
func (b *sessionBook) probe(ctx context.Context, sr *sessionRun, path string) {
	client := &http.Client{Timeout: 2 * time.Second}
	base := "http://127.0.0.1:" + strconv.Itoa(sr.port)
	pause := 250 * time.Millisecond
	var reported *time.Time
	ready := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-sr.done:
			return
		case <-time.After(pause):
		}
		if !ready {
			resp, err := client.Get(base + path)
			if err != nil {
				continue
			}
			resp.Body.Close()
			if b.ready == nil || b.ready(ctx, sr.jobID, nil) != nil {
				continue
			}
			ready = true
		}
		if sr.kind != "jupyter" || b.ready == nil {
			return
		}
		pause = cmp.Or(b.every, 10*time.Second)
		last, err := jupyterActivity(ctx, client, base+api.SessionPath(sr.jobID))
		if err != nil || (reported != nil && !last.After(*reported)) {
			continue
		}
		if b.ready(ctx, sr.jobID, &last) == nil {
			reported = &last
		}
	}
}

// jupyterActivity is a Jupyter server's last activity: its own
// (/api/status, which counts kernels, terminals and API requests), or now
// while a kernel is busy. Neither request counts as activity itself.
func jupyterActivity(ctx context.Context, client *http.Client, base string) (time.Time, error) {
	var status struct {
		LastActivity time.Time `json:"last_activity"`
	}
	if err := getJSON(ctx, client, base+"api/status", &status); err != nil {
		return time.Time{}, err
	}
	var kernels []struct {
		ExecutionState string `json:"execution_state"`
	}
	if err := getJSON(ctx, client, base+"api/kernels?no_track_activity=1", &kernels); err != nil {
		return time.Time{}, err
	}
	for _, k := range kernels {
		if k.ExecutionState == "busy" {
			return time.Now().UTC(), nil
		}
	}
	return status.LastActivity, nil
}

// getJSON decodes the JSON answer to a GET of url into v.
func getJSON(ctx context.Context, client *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("node: %s: %s", url, resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}
