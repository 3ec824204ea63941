package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// workloadCluster is a real server with two node agents of four fake GPUs
// each (real processes), and a member whose jobs run as the tests' user.
type workloadCluster struct {
	s     *testserver.Server
	token string
	user  *models.User
}

// newWorkloadCluster starts the server and its agents.
func newWorkloadCluster(t *testing.T) *workloadCluster {
	t.Helper()
	s := testserver.New(t)
	tok, u := s.UserToken(t, models.RoleMember)
	if err := models.SetUnixUser(context.Background(), s.DB.Bun, u.ID, jobRunAs(t), time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"wl-a", "wl-b"} {
		newStressAgent(t, s, name).start()
	}
	waitFor(t, "8 GPUs up", func() bool { return upGPUs(t, s) == 8 })
	return &workloadCluster{s: s, token: tok, user: u}
}

// submit posts body to /api/v1/queue/submit and returns the job's id.
func (w *workloadCluster) submit(t *testing.T, body string) int64 {
	t.Helper()
	status, out := w.s.Do(t, "POST", "/api/v1/queue/submit", w.token, body)
	if status != 201 {
		t.Fatalf("submit %s: %d %s", body, status, out)
	}
	var j struct{ ID int64 }
	if err := json.Unmarshal(out, &j); err != nil || j.ID == 0 {
		t.Fatalf("submit answer %s: %v", out, err)
	}
	return j.ID
}

// job reads job id.
func (w *workloadCluster) job(t *testing.T, id int64) *models.Job {
	t.Helper()
	j, err := models.GetJob(context.Background(), w.s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// waitState waits until job id is in state, failing at once if it ends in
// another terminal state.
func (w *workloadCluster) waitState(t *testing.T, id int64, state string, limit time.Duration) *models.Job {
	t.Helper()
	var j *models.Job
	waitLong(t, fmt.Sprintf("job %d %s", id, state), limit, func() bool {
		j = w.job(t, id)
		if j.State != state && models.IsTerminal(j.State) {
			t.Fatalf("job %d ended %s (%s), want %s", id, j.State, j.FailureReason, state)
		}
		return j.State == state
	})
	return j
}

// events returns job id's timeline.
func (w *workloadCluster) events(t *testing.T, id int64) []models.JobEvent {
	t.Helper()
	ev, err := models.JobEvents(context.Background(), w.s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}
