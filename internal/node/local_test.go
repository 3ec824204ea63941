package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// localAPI serves the agent's local API; the tests' own Unix user is mapped
// to a scheduler user unless unmapped is set.
func (c *cluster) localAPI(t testing.TB, unmapped bool) string {
	t.Helper()
	a := c.agent
	if a == nil {
		t.Fatal("start the agent first")
	}
	if !unmapped {
		me, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		u := testdb.User(t, c.s.DB, models.RoleMember)
		if err := models.SetUnixUser(context.Background(), c.s.DB.Bun, u.ID, me.Username, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	l := &node.Local{Agent: a, Port: 9123, Version: "test", Logger: c.s.Logger}
	srv := httptest.NewServer(l.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

func post(t testing.TB, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// sleeper starts a process that lives for d and returns its pid.
func sleeper(t testing.TB, d time.Duration) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", fmt.Sprint(d.Seconds()))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// The local-scheduler document's srun, unchanged: POST /acquire with $$,
// read .gpus, export, exec.
func TestLocalSrunScript(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	url := c.localAPI(t, false)
	srun := `resp=$(curl -s -X POST -H "Content-Type: application/json" -d '{"pid": '$$', "num_gpus": 2}' "$GPUSCHED_URL/acquire")
gpus=$(echo "$resp" | jq -r .gpus)
export CUDA_VISIBLE_DEVICES=$gpus
exec sh -c 'echo "visible=$CUDA_VISIBLE_DEVICES"'`
	cmd := exec.Command("bash", "-c", srun)
	cmd.Env = append(os.Environ(), "GPUSCHED_URL="+url)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "visible=0,1" {
		t.Fatalf("srun printed %q (%v), want visible=0,1", out, err)
	}
	// The process exited: the lease ends and the GPUs are free again.
	waitFor(t, "the lease released", func() bool {
		n, _ := c.s.DB.Bun.NewSelect().Model((*models.Allocation)(nil)).Where("released_at IS NULL").Count(context.Background())
		return n == 0
	})
}

// /acquire's refusals: 400 for a bad num_gpus or pid, and a Unix user with
// no scheduler user is refused with the fix named.
func TestLocalAcquireRefusals(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	url := c.localAPI(t, true)
	alive := sleeper(t, time.Minute).Process.Pid
	tests := map[string]struct {
		body   string
		status int
		error  string
	}{
		"negative":        {body: fmt.Sprintf(`{"pid": %d, "num_gpus": -1}`, alive), status: 400, error: "num_gpus"},
		"more than there": {body: fmt.Sprintf(`{"pid": %d, "num_gpus": 5}`, alive), status: 400, error: "between 0 and 4"},
		"no pid":          {body: `{"num_gpus": 1}`, status: 400, error: "pid"},
		"dead pid":        {body: `{"pid": 999999999, "num_gpus": 1}`, status: 400, error: "does not exist"},
		"not json":        {body: `nope`, status: 400, error: "JSON"},
		"unmapped user":   {body: fmt.Sprintf(`{"pid": %d, "num_gpus": 1}`, alive), status: 403, error: "--unix-user"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			status, out := post(t, url+"/acquire", tc.body)
			msg, _ := out["error"].(string)
			if status != tc.status || !strings.Contains(msg, tc.error) {
				t.Fatalf("%d %v, want %d with %q", status, out, tc.status, tc.error)
			}
		})
	}
	// Zero GPUs is allowed and granted at once.
	if status, out := post(t, url+"/acquire", fmt.Sprintf(`{"pid": %d, "num_gpus": 0}`, alive)); status != 200 || out["gpus"] != "" {
		t.Fatalf("num_gpus 0: %d %v", status, out)
	}
}
