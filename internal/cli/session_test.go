package cli

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// `gpusched notebook --no-wait` queues a Jupyter session, `session list`
// shows it with where it waits, `session stop` stops it and says where its
// files stay.
func TestNotebookAndSessionCommands(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)

	out, err := gpusched(t, "notebook", "-g", "1", "--time", "2h", "--workdir", "/tmp", "--no-wait")
	m := regexp.MustCompile(`^session (\d+) queued \(1 GPU\)\n$`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("notebook: %q %v", out, err)
	}
	j, err := models.GetJob(context.Background(), s.DB.Bun, mustInt(t, m[1]))
	if err != nil || j.JobType != "session-jupyter" || *j.TimeLimitS != 7200 || j.Workdir != "/tmp" {
		t.Fatalf("the session's job: %+v %v", j, err)
	}
	if out, err = gpusched(t, "session", "list"); err != nil || !strings.Contains(out, m[1]+"  ") || !strings.Contains(out, "jupyter") {
		t.Fatalf("session list: %q %v", out, err)
	}
	if out, err = gpusched(t, "session", "stop", m[1]); err != nil || !strings.Contains(out, "its files stay in /tmp") {
		t.Fatalf("session stop: %q %v", out, err)
	}
	if _, err = gpusched(t, "notebook", "-g", "0", "--no-wait"); err == nil || !strings.Contains(err.Error(), "gpu_count") {
		t.Fatalf("no GPUs asked: %v", err)
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
