package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A batch script submitted with sbatch runs on a node agent as it is: its
// #SBATCH lines set the job, -o's pattern names its output file in the
// working directory, and the script sees Slurm's variables and its
// arguments.
func TestSbatchRunsScriptOnNode(t *testing.T) {
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
	startTestAgent(t, s)

	// Not t.TempDir: a job running as nobody writes its output here.
	work, err := os.MkdirTemp("", "gpusched-sbatch-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(work) })
	if err := os.Chmod(work, 0o777); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "probe.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
# probe the environment
#SBATCH --job-name=probe
#SBATCH --gres=gpu:h100:2
#SBATCH -t 5
#SBATCH -o %x-%j.out
#SBATCH --partition=gpu
env | grep '^SLURM' | sort
echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
echo "args $*"
echo "on stderr" >&2
#SBATCH --time=1
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := gpusched(t, "sbatch", "-D", work, script, "one", "two")
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
		t.Fatal("the batch job did not complete")
	}
	body, err := os.ReadFile(filepath.Join(work, "probe-"+strconv.FormatInt(id, 10)+".out"))
	if err != nil {
		t.Fatalf("the -o file: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	devices := ""
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "CUDA_VISIBLE_DEVICES="); ok {
			devices = v
		}
	}
	if strings.Count(devices, ",") != 1 {
		t.Fatalf("CUDA_VISIBLE_DEVICES=%q, want two GPUs; the file:\n%s", devices, body)
	}
	host := "cli" // the test agent's name
	cwd, _ := os.Getwd()
	ids := strconv.FormatInt(id, 10)
	want := []string{
		"SLURMD_NODENAME=" + host, "SLURM_CLUSTER_NAME=gpusched",
		"SLURM_GPUS_ON_NODE=2", "SLURM_GPUS_PER_NODE=2", "SLURM_JOBID=" + ids, "SLURM_JOB_GPUS=" + devices,
		"SLURM_JOB_ID=" + ids, "SLURM_JOB_NAME=probe", "SLURM_JOB_NODELIST=" + host, "SLURM_JOB_NUM_NODES=1",
		"SLURM_LOCALID=0", "SLURM_NNODES=1", "SLURM_NODEID=0", "SLURM_NODELIST=" + host, "SLURM_NPROCS=1",
		"SLURM_NTASKS=1", "SLURM_PROCID=0", "SLURM_SUBMIT_DIR=" + cwd, "SLURM_TASKS_PER_NODE=1",
		"CUDA_VISIBLE_DEVICES=" + devices, "args one two", "on stderr",
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("the -o file (-want +got):\n%s", d)
	}
	j, err := models.GetJob(t.Context(), s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.TimeLimitS == nil || *j.TimeLimitS != 300 {
		t.Errorf("time limit %v, want 300 s (the first -t, not the one after the command)", j.TimeLimitS)
	}

	// An array's tasks each write their own %A_%a file.
	sweep := filepath.Join(t.TempDir(), "sweep.sh")
	if err := os.WriteFile(sweep, []byte(`#!/bin/bash
#SBATCH --array=0-1
#SBATCH --gres=gpu:1
#SBATCH --output=sweep_%A_%a.out
echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID, job $SLURM_JOB_ID"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = gpusched(t, "sbatch", "--chdir="+work, sweep)
	if err != nil || !strings.HasPrefix(out, "Submitted batch job ") {
		t.Fatalf("sbatch of an array: %q %v", out, err)
	}
	arrayID, _ := strconv.ParseInt(strings.Fields(out)[3], 10, 64)
	for task := range int64(2) {
		file := filepath.Join(work, fmt.Sprintf("sweep_%d_%d.out", arrayID, task))
		want := regexp.MustCompile(fmt.Sprintf(`^task %d of %d, job \d+\n$`, task, arrayID))
		if !eventually(30*time.Second, func() bool { b, _ := os.ReadFile(file); return want.Match(b) }) {
			b, err := os.ReadFile(file)
			t.Errorf("%s: %q %v, want %q", file, b, err, want)
		}
	}
}

// --time=0, Slurm's unlimited, is the policy's maximum limit; --wrap runs
// a command line.
func TestSbatchTimeZeroIsPolicyMax(t *testing.T) {
	s := testserver.New(t)
	ctx := context.Background()
	cfg, err := models.SchedulerConfig(ctx, s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TimeLimit.Max = scheduler.Duration(3 * time.Hour)
	if err := models.PutSchedulerConfig(ctx, s.DB.Bun, cfg, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	script := filepath.Join(t.TempDir(), "long.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n#SBATCH --time=0\n#SBATCH -G 1\nsleep 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := gpusched(t, "sbatch", script)
	if err != nil || !strings.HasPrefix(out, "Submitted batch job ") {
		t.Fatalf("sbatch: %q %v", out, err)
	}
	id, _ := strconv.ParseInt(strings.Fields(out)[3], 10, 64)
	j, err := models.GetJob(t.Context(), s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.TimeLimitS == nil || *j.TimeLimitS != 3*3600 {
		t.Errorf("time limit %v, want the policy's maximum, 10800 s", j.TimeLimitS)
	}

	out, err = gpusched(t, "sbatch", "-G", "1", "--wrap", "python eval.py --all")
	if err != nil || !strings.HasPrefix(out, "Submitted batch job ") {
		t.Fatalf("sbatch --wrap: %q %v", out, err)
	}
	id, _ = strconv.ParseInt(strings.Fields(out)[3], 10, 64)
	if j, err = models.GetJob(t.Context(), s.DB.Bun, id); err != nil {
		t.Fatal(err)
	}
	if j.Name != "wrap" || !strings.Contains(j.Command, "python eval.py --all") {
		t.Errorf("sbatch --wrap queued %q running %q", j.Name, j.Command)
	}
}
