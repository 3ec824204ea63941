package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// squeue lists an array as Slurm does: each running task on its own line
// (ARRAY_TASK), the pending ones as one (ARRAY_[SPEC]); gpusched queue
// keeps the array as one entry; sacct names each ended task ARRAY_TASK. (No agent runs here: the placed tasks
// stay configuring, CF, which is Slurm's word for it too.)
func TestSqueueListsRunningArrayTasks(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559},{"index":1,"uuid":"G1","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	out, err := gpusched(t, "submit", "--json", "-g", "1", "--name", "sweep", "--array", "0-3", "--", "true")
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	array := regexp.MustCompile(`"id":\s*(\d+)`).FindStringSubmatch(out)[1]
	var ids []string
	if !eventually(10*time.Second, func() bool {
		out, err = gpusched(t, "squeue", "-h")
		ids = nil
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(f) > 4 {
				st := f[4]
				if st == "CF" { // sent to the node, which this test does not run
					st = "R"
				}
				ids = append(ids, f[0]+" "+st)
			}
		}
		return err == nil && len(ids) == 3
	}) {
		t.Fatalf("squeue never showed two running tasks and the pending rest: %q %v", out, err)
	}
	want := []string{array + "_0 R", array + "_1 R", array + "_[0-3] PD"}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("squeue entries (-want +got):\n%s\n%s", d, out)
	}
	if st, body := s.Do(t, "GET", "/api/v1/queue?arrays=sideways", tok, ""); st != 400 || !strings.Contains(string(body), "grouped or tasks") {
		t.Errorf("arrays=sideways: %d %s", st, body)
	}
	q, err := gpusched(t, "queue")
	if err != nil || strings.Count(q, array+"_") != 1 {
		t.Errorf("gpusched queue should keep the array as one entry: %v\n%s", err, q)
	}

	// Ended, sacct names each task as Slurm does: ARRAY_TASK.
	if _, err := gpusched(t, "scancel", array); err != nil {
		t.Fatal(err)
	}
	var acct string
	if !eventually(10*time.Second, func() bool {
		acct, err = gpusched(t, "sacct", "-n", "-P")
		return err == nil && strings.Count(acct, "CANCELLED") == 4
	}) {
		t.Fatalf("sacct never listed the 4 canceled tasks: %v\n%s", err, acct)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(acct), "\n") {
		got = append(got, strings.Split(l, "|")[0])
	}
	slices.Sort(got)
	if d := cmp.Diff([]string{array + "_0", array + "_1", array + "_2", array + "_3"}, got); d != "" {
		t.Errorf("sacct job ids (-want +got):\n%s\n%s", d, acct)
	}
}
