package cli

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestArrayAndAfterCommands: gpusched submit --array queues an array and
// says so; queue shows it as one line, Slurm's way; --after and
// --dependency queue a job that waits for it, saying so; cancel takes
// ID_TASK and the array's id.
func TestArrayAndAfterCommands(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)

	out, err := gpusched(t, "submit", "--array", "0-4%1", "--time", "30", "--name", "sweep", "--", "sh", "-c", "sleep 60")
	m := regexp.MustCompile(`^array (\d+) queued: 5 tasks \[0-4%1\] \(1 GPU each, normal priority\)\n$`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("submit --array: %q %v", out, err)
	}
	id := m[1]
	out, err = gpusched(t, "submit", "--after", "ok:"+id, "-d", "afterany:"+id+"_4", "--name", "pick", "--", "true")
	if err != nil || !strings.HasPrefix(out, "job ") {
		t.Fatalf("submit --after: %q %v", out, err)
	}
	pick := strings.Fields(out)[1]
	if !eventually(10*time.Second, func() bool {
		out, err = gpusched(t, "queue")
		return err == nil && strings.Contains(out, "waits for the tasks of array "+id+" to complete successfully (afterok), and 1 more") &&
			strings.Contains(out, "1 allocating, 4 queued")
	}) {
		t.Fatalf("queue never showed the array and the waiting job:\n%s %v", out, err)
	}
	if n := strings.Count(out, id+"_[0-4%1]"); n != 1 {
		t.Errorf("the array is on %d lines, want 1:\n%s", n, out)
	}
	if out, err = gpusched(t, "cancel", id+"_3"); err != nil || !strings.Contains(out, "array "+id+": ") || !strings.Contains(out, "1 canceled") {
		t.Fatalf("cancel a task: %q %v", out, err)
	}
	if out, err = gpusched(t, "cancel", id); err != nil || !strings.Contains(out, "5 canceled") {
		t.Fatalf("cancel the array: %q %v", out, err)
	}
	if !eventually(10*time.Second, func() bool {
		id, _ := strconv.ParseInt(pick, 10, 64)
		j, err := models.GetJob(t.Context(), s.DB.Bun, id)
		return err == nil && j.State == models.JobCanceled
	}) {
		t.Error("the job after ok of the canceled array was not canceled")
	}
	if _, err = gpusched(t, "cancel", id+"_x"); err == nil || !strings.Contains(err.Error(), "is not a job id, ARRAY_TASK") {
		t.Errorf("cancel of a bad reference: %v", err)
	}
}
