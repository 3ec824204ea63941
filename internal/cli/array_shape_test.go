package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// registerFor registers node name with the GPUs of req.
func registerFor(t *testing.T, s *testserver.Server, name string, req api.RegisterNodeRequest) {
	t.Helper()
	tok, _ := s.NodeToken(t, name)
	body, _ := json.Marshal(req)
	if st, out := s.Do(t, "POST", "/api/v1/nodes/register", tok, string(body)); st != 200 {
		t.Fatalf("register %s: %d %s", name, st, out)
	}
}

// TestArrayTasksCarryTheShapeAndShare: an array submitted with gpusched
// submit --nodes 2 --gpus-per-node 8, with sbatch -N 2 --gpus-per-node=8,
// or with --gpu-share 0.5, is queued as tasks that each ask for the whole
// request (2 nodes × 8 GPUs; half a shared GPU), and submit says so.
func TestArrayTasksCarryTheShapeAndShare(t *testing.T) {
	s := testserver.New(t)
	for _, n := range []string{"wide-a", "wide-b"} {
		req := api.RegisterNodeRequest{Hostname: n}
		for i := range 8 {
			req.GPUs = append(req.GPUs, api.NodeGPU{Index: i, UUID: fmt.Sprintf("GPU-%s-%d", n, i), Model: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559})
		}
		registerFor(t, s, n, req)
	}
	shared := api.RegisterNodeRequest{Hostname: "shared"}
	for i := range 4 {
		shared.GPUs = append(shared.GPUs, api.NodeGPU{Index: 0, UUID: fmt.Sprintf("GPU-shared-0-%d", i), Model: "NVIDIA H100 80GB HBM3",
			MemoryMiB: 81559 / 4, Kind: api.KindShare, Share: &api.NodeShare{ParentUUID: "GPU-shared-0", Slots: 4}})
	}
	registerFor(t, s, "shared", shared)
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)

	script := filepath.Join(t.TempDir(), "wide.sh")
	if err := os.WriteFile(script, []byte("#!/bin/bash\n#SBATCH --array=0-3\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\ntrue\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shaped := func(j models.Job) bool {
		return j.Nodes == 2 && j.GPUCount == 16 && j.AllowMultiNode && j.GPUShare == 0
	}
	tests := map[string]struct {
		args []string
		says string
		want func(models.Job) bool
	}{
		"submit --nodes": {
			[]string{"submit", "--array", "0-3", "--nodes", "2", "--gpus-per-node", "8", "--time", "30", "--", "true"},
			`2 nodes × 8 GPUs each`, shaped,
		},
		"sbatch -N": {[]string{"sbatch", script}, `2 nodes × 8 GPUs each`, shaped},
		"submit --gpu-share": {
			[]string{"submit", "--array", "0-3", "--gpu-share", "0.5", "--time", "30", "--", "true"},
			`0.5 of a shared GPU each`,
			func(j models.Job) bool { return j.GPUShare == 0.5 && j.GPUCount == 1 && j.Nodes == 0 },
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, errOut, err := gpuschedStderr(t, tc.args...)
			if tc.args[0] == "sbatch" { // Slurm's line on stdout, ours on stderr
				if !strings.HasPrefix(out, "Submitted batch job ") {
					t.Fatalf("sbatch: %q", out)
				}
				out = errOut
			}
			m := regexp.MustCompile(`^array (\d+) queued: 4 tasks \[0-3\] \((.*), normal priority\)\n$`).FindStringSubmatch(out)
			if err != nil || m == nil {
				t.Fatalf("%q %v", out, err)
			}
			if m[2] != tc.says {
				t.Errorf("says %q, want %q", m[2], tc.says)
			}
			id, _ := strconv.ParseInt(m[1], 10, 64)
			tasks, err := models.ArrayTasks(t.Context(), s.DB.Bun, id, 0)
			if err != nil || len(tasks) != 4 {
				t.Fatalf("tasks of array %d: %d %v", id, len(tasks), err)
			}
			for _, task := range tasks {
				if !tc.want(task) {
					t.Errorf("task %d: %d GPUs on %d nodes (multi-node %v), share %g: not the request",
						*task.ArrayTaskID, task.GPUCount, task.Nodes, task.AllowMultiNode, task.GPUShare)
				}
			}
		})
	}
}
