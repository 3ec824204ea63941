package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/internal/ray/raytest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// manualClock is the fake Ray head's clock, moved by the test.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// rayEnv is a full server with a Ray executor, a fake Ray head and a user.
type rayEnv struct {
	s     *testserver.Server
	ex    *jobs.RayExecutor
	fake  *raytest.Server
	clock *manualClock
	token string
	user  *models.User
}

// newRayEnv starts a fake Ray head (PENDING 10s, RUNNING 60s on its own
// clock) and a server with a 4-GPU node "gpu-a" that Ray knows as
// 10.0.0.5. tune may change the Ray settings.
func newRayEnv(t testing.TB, tune func(*jobs.RayConfig)) *rayEnv {
	t.Helper()
	clock := &manualClock{t: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	fake := raytest.New(clock.Now)
	fake.PendingFor, fake.RunFor, fake.LogEvery = 10*time.Second, 60*time.Second, 20*time.Second
	hs := httptest.NewServer(fake)
	t.Cleanup(hs.Close)
	client, err := ray.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := jobs.RayConfig{Client: client, Nodes: map[string]string{"gpu-a": "10.0.0.5"},
		SyncEvery: time.Hour, LostAfter: time.Hour, StopTimeout: time.Hour, RetryBase: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond,
		LogsEvery: time.Nanosecond}
	if tune != nil {
		tune(&cfg)
	}
	s, ex := testserver.NewWithRay(t, cfg)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(4)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, user := s.UserToken(t, models.RoleMember)
	// The first sync (run at start) has probed Ray: later requests are the test's.
	waitFor(t, "first ray sync", func() bool {
		_, err := models.GetRayCluster(context.Background(), s.DB.Bun)
		return err == nil
	})
	return &rayEnv{s: s, ex: ex, fake: fake, clock: clock, token: tok, user: user}
}

// submit queues a Ray job of gpus GPUs running command.
func (e *rayEnv) submit(t testing.TB, gpus int, command string) int64 {
	t.Helper()
	body := fmt.Sprintf(`{"command": %q, "gpu_count": %d, "executor": "ray", "name": "train", "max_retries": 1}`, command, gpus)
	st, out := e.s.Do(t, "POST", "/api/v1/queue/submit", e.token, body)
	if st != 201 {
		t.Fatalf("submit: %d %s", st, out)
	}
	var j api.Job
	mustJSON(t, out, &j)
	return j.ID
}

// job reads a job back from the database.
func (e *rayEnv) job(t testing.TB, id int64) *models.Job {
	t.Helper()
	j, err := models.GetJob(context.Background(), e.s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// waitState syncs with Ray until job id is in state.
func (e *rayEnv) waitState(t *testing.T, id int64, state string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("job %d %s", id, state), func() bool {
		if err := e.ex.Sync(context.Background()); err != nil {
			t.Logf("sync: %v", err)
		}
		return e.job(t, id).State == state
	})
}

// states is the job's path through its states, from its events.
func (e *rayEnv) states(t *testing.T, id int64) []string {
	t.Helper()
	evs, err := models.JobEvents(context.Background(), e.s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, ev.ToState)
	}
	return out
}

// heldGPUs counts the GPUs allocated now, to anyone.
func (e *rayEnv) heldGPUs(t *testing.T) int {
	t.Helper()
	n, err := e.s.DB.Bun.NewSelect().Model((*models.Allocation)(nil)).Where("released_at IS NULL").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// submissions counts the POST /api/jobs/ requests the fake head got.
func (e *rayEnv) submissions() int {
	n := 0
	for _, r := range e.fake.Requests() {
		if r.Method == "POST" && r.Path == "/api/jobs/" {
			n++
		}
	}
	return n
}

// stops lists the submission ids the fake head was asked to stop.
func (e *rayEnv) stops() []string {
	var out []string
	for _, r := range e.fake.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/stop") {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(r.Path, "/api/jobs/"), "/stop"))
		}
	}
	return out
}

// logs reads the job's whole output through the API.
func (e *rayEnv) logs(t *testing.T, id int64) string {
	t.Helper()
	st, body := e.s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d/logs", id), e.token, "")
	if st != 200 {
		t.Fatalf("logs: %d %s", st, body)
	}
	var page struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	return page.Data
}
