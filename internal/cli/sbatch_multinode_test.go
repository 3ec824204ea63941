package cli

import (
	"context"
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
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The usual Slurm multi-node script, submitted with sbatch, runs on two
// node agents as it is: scontrol show hostnames gives the head node, srun
// runs one task per node with its own SLURM_PROCID, every task sees
// MASTER_ADDR, and the -o file (one folder, as a shared one) gathers both
// nodes' output.
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
	for _, name := range []string{"mn-a", "mn-b"} {
		startNamedAgent(t, s, name)
	}
	work, err := os.MkdirTemp("", "gpusched-sbatch-mn-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(work) })
	if err := os.Chmod(work, 0o777); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "two.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/bash
#SBATCH --job-name=two
#SBATCH --nodes=2
#SBATCH --gpus-per-node=4
#SBATCH --ntasks-per-node=1
#SBATCH --output=%x-%j.out
head=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)
srun bash -c "echo task \$SLURM_PROCID of \$SLURM_NTASKS on node \$SLURM_NODEID head $head master \$MASTER_ADDR"
`), 0o644); err != nil {
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
	body, err := os.ReadFile(filepath.Join(work, "two-"+strconv.FormatInt(id, 10)+".out"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	sort.Strings(lines)
	want := []string{"task 0 of 2 on node 0 head mn-a master 127.0.0.1", "task 1 of 2 on node 1 head mn-a master 127.0.0.1"}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("the -o file (-want +got):\n%s", d)
	}
}

// startNamedAgent runs a node agent called name with 4 fake GPUs, reached
// at 127.0.0.1, until the test ends.
func startNamedAgent(t *testing.T, s *testserver.Server, name string) {
	t.Helper()
	ntok, n := s.NodeToken(t, name)
	spec, _ := gpu.ParseFakeSpec("1x4:H100-80GB")
	dir, err := os.MkdirTemp("", "gpusched-cli-node-")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o711)
	a := &node.Agent{Client: apiclient.New(s.URL, ntok), GPUs: gpu.NewFake(name, spec), Hostname: name, Address: "127.0.0.1",
		Version: "test", Logger: s.Logger, Interval: time.Second, StateDir: filepath.Join(dir, "state")}
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
