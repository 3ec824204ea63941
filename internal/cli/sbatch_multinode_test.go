package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/steps"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func init() {
	if steps.IsStep(os.Args[0]) { // a multi-node batch job's steps, through stepHelper's copy
		os.Exit(steps.Main(os.Args[1:]))
	}
}

// The usual Slurm multi-node script, submitted with sbatch, runs on two
// node agents as it does under Slurm: once, on the first node (a line
// outside srun is written once), scontrol show hostnames gives the head
// node, srun runs one task per node with its own SLURM_PROCID, every task
// sees MASTER_ADDR, and the -o file, written by the first node, gathers
// both nodes' output.
func TestSbatchTwoNodeScript(t *testing.T) {
	s := testserver.New(t)
	tok, u := s.UserToken(t, models.RoleMember)
	runAs := "nobody"
	if os.Geteuid() != 0 {
		runAs = os.Getenv("USER")
	}
	if err := models.SetUnixUser(context.Background(), s.DB.Bun, u.ID, runAs, time.Now()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	helper := stepHelper(t)
	for _, name := range []string{"mn-a", "mn-b"} {
		startNamedAgent(t, s, name, helper)
	}
	work, err := os.MkdirTemp("", "gpusched-sbatch-mn-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(work) })
	if err := os.Chmod(work, 0o777); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		script, out string
		want        []string
	}{
		"one task per node": {script: `#!/bin/bash
#SBATCH --job-name=two
#SBATCH --nodes=2
#SBATCH --gpus-per-node=4
#SBATCH --ntasks-per-node=1
#SBATCH --output=%x-%j.out
head=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)
echo "batch on $SLURMD_NODENAME"
srun bash -c "echo task \$SLURM_PROCID of \$SLURM_NTASKS on node \$SLURM_NODEID head $head master \$MASTER_ADDR"
`, out: "two-%d.out", want: []string{"batch on mn-a", "task 0 of 2 on node 0 head mn-a master 127.0.0.1", "task 1 of 2 on node 1 head mn-a master 127.0.0.1"}},
		"two tasks per node": {script: `#!/bin/bash
#SBATCH -N 2
#SBATCH --gres=gpu:4
#SBATCH --ntasks-per-node 2
#SBATCH -o slurm-%j.out
export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)
echo "start $SLURM_NNODES nodes $SLURM_NTASKS tasks"
srun bash -c 'echo "probe $SLURM_PROCID/$SLURM_NTASKS local $SLURM_LOCALID $SLURMD_NODENAME $MASTER_ADDR"'
echo end
`, out: "slurm-%d.out", want: []string{"end", "probe 0/4 local 0 mn-a mn-a", "probe 1/4 local 1 mn-a mn-a",
			"probe 2/4 local 0 mn-b mn-a", "probe 3/4 local 1 mn-b mn-a", "start 2 nodes 4 tasks"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "job.sh")
			if err := os.WriteFile(script, []byte(tc.script), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := gpusched(t, "sbatch", "-D", work, script)
			if err != nil || !strings.HasPrefix(out, "Submitted batch job ") {
				t.Fatalf("sbatch: %q %v", out, err)
			}
			id, err := strconv.ParseInt(strings.Fields(out)[3], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if !eventually(30*time.Second, func() bool {
				j, err := models.GetJob(t.Context(), s.DB.Bun, id)
				return err == nil && j.State == models.JobCompleted
			}) {
				t.Fatal("the two-node job did not complete")
			}
			body, err := os.ReadFile(filepath.Join(work, fmt.Sprintf(tc.out, id)))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(body)), "\n")
			sort.Strings(lines)
			if d := cmp.Diff(tc.want, lines); d != "" {
				t.Errorf("the -o file (-want +got):\n%s", d)
			}
		})
	}
}

// stepHelper is a copy of the test binary that every job's user may run:
// the agents' step program.
func stepHelper(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gpusched-cli-step-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "helper")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// startNamedAgent runs a node agent called name with 4 fake GPUs, reached
// at 127.0.0.1, whose step program is helper, until the test ends.
func startNamedAgent(t *testing.T, s *testserver.Server, name, helper string) {
	t.Helper()
	ntok, n := s.NodeToken(t, name)
	spec, _ := gpu.ParseFakeSpec("1x4:H100-80GB")
	dir, err := os.MkdirTemp("", "gpusched-cli-node-")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o711)
	a := &node.Agent{Client: apiclient.New(s.URL, ntok), GPUs: gpu.NewFake(name, spec), Hostname: name, Address: "127.0.0.1",
		Version: "test", Logger: s.Logger, Interval: time.Second, StateDir: filepath.Join(dir, "state"), StepProgram: helper}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; _ = os.RemoveAll(dir) })
	if !eventually(10*time.Second, func() bool {
		c, err := s.DB.Bun.NewSelect().Model((*models.GPU)(nil)).Where("node_id = ? AND present AND telemetry_at IS NOT NULL", n.ID).Count(context.Background())
		return err == nil && c == 4
	}) {
		t.Fatalf("agent %s did not register its GPUs", name)
	}
}
