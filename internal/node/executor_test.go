package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// cluster is a control plane with one node agent on fake GPUs that runs
// real processes, and a member's token.
type cluster struct {
	s         *testserver.Server
	user      string // personal token
	nodeToken string
	node      *models.Node
	stateDir  string
	fake      *gpu.Fake
	agent     *node.Agent // the latest started
}

func newCluster(t testing.TB) *cluster {
	t.Helper()
	s := testserver.New(t)
	s.Deps.Executors[models.ExecutorNode].(*jobs.NodeExecutor).StopGrace = time.Second
	tok, u := s.UserToken(t, models.RoleMember)
	// As root the agent runs jobs as their owner's Unix user.
	if err := models.SetUnixUser(context.Background(), s.DB.Bun, u.ID, "nobody", time.Now()); err != nil {
		t.Fatal(err)
	}
	ntok, n := s.NodeToken(t, "gpu-"+strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")))
	spec, _ := gpu.ParseFakeSpec("1x4:H100-80GB")
	// Not t.TempDir: its parent is private, and jobs running as nobody must
	// reach their exit files.
	dir, err := os.MkdirTemp("", "gpusched-node-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	return &cluster{s: s, user: tok, nodeToken: ntok, node: n, stateDir: filepath.Join(dir, "state"), fake: gpu.NewFake(t.Name(), spec)}
}

// jobUser is who jobs run as: nobody when the tests run as root, else the
// tests' own user.
func jobUser(t testing.TB) string {
	if os.Geteuid() == 0 {
		return "nobody"
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

// startAgent runs an agent until the returned stop is called (or t ends).
func (c *cluster) startAgent(t testing.TB) (stop func()) {
	t.Helper()
	a := &node.Agent{Client: apiclient.New(c.s.URL, c.nodeToken), GPUs: c.fake, Hostname: "h", Version: "test",
		Logger: c.s.Logger.With("agent", "test"), Interval: time.Second, StateDir: c.stateDir}
	c.agent = a
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	waitFor(t, "the agent's GPUs", func() bool { return liveGPUs(t, c.s.DB, c.node.ID) == 4 })
	return stop
}

func (c *cluster) submit(t testing.TB, command string, gpus, retries int) int64 {
	t.Helper()
	body := fmt.Sprintf(`{"command": %q, "gpu_count": %d, "executor": "node", "workdir": "/", "max_retries": %d}`, command, gpus, retries)
	status, out := c.s.Do(t, "POST", "/api/v1/queue/submit", c.user, body)
	if status != 201 {
		t.Fatalf("submit: %d %s", status, out)
	}
	var j struct{ ID int64 }
	_ = json.Unmarshal(out, &j)
	return j.ID
}

func (c *cluster) job(t testing.TB, id int64) *models.Job {
	t.Helper()
	j, err := models.GetJob(context.Background(), c.s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func (c *cluster) waitState(t testing.TB, id int64, state string) *models.Job {
	t.Helper()
	var j *models.Job
	waitFor(t, fmt.Sprintf("job %d %s", id, state), func() bool { j = c.job(t, id); return j.State == state })
	return j
}

func (c *cluster) logs(t testing.TB, id int64) api.JobLog {
	t.Helper()
	status, out := c.s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d/logs", id), c.user, "")
	if status != 200 {
		t.Fatalf("logs: %d %s", status, out)
	}
	var l api.JobLog
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func (c *cluster) liveAllocations(t testing.TB, id int64) int {
	t.Helper()
	n, err := c.s.DB.Bun.NewSelect().Model((*models.Allocation)(nil)).Where("job_id = ? AND released_at IS NULL", id).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

func (c *cluster) starts(t testing.TB, id int64) int {
	t.Helper()
	n, err := c.s.DB.Bun.NewSelect().Model((*models.NodeCommand)(nil)).Where("job_id = ? AND kind = 'start'", id).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

func itoa(id int64) string { return fmt.Sprint(id) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
