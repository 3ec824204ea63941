package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Scripts written the way real ones are give the submission and warnings
// they should: directives until the first command, the command line over
// them, GPUs from --gres, --gpus and per-node counts, Slurm's times.
func TestBuildSbatch(t *testing.T) {
	t.Parallel()
	cluster := clusterGPUs{models: []string{"1g.10gb", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"}, perNode: []int{8, 8}}
	environ := []string{"PATH=/opt/conda/bin:/usr/bin", "HOME=/home/ada", "GPUSCHED_TOKEN=gsu_secret", "WANDB_PROJECT=nlp", "SLURM_JOB_ID=9",
		"BASH_FUNC_module%%=() {  eval $(modulecmd bash $*)\n}", "1BAD=x"}
	base := func(script string, gpus int, env map[string]string, edit func(*api.SubmitRequest)) api.SubmitRequest {
		full := map[string]string{"PATH": "/opt/conda/bin:/usr/bin", "WANDB_PROJECT": "nlp", "SLURM_SUBMIT_DIR": "/home/ada/proj", "SLURM_NTASKS": "1", "GPUSCHED_STDOUT": "slurm-%j.out"}
		for k, v := range env {
			if v == "-" {
				delete(full, k)
			} else {
				full[k] = v
			}
		}
		r := api.SubmitRequest{Name: "job.sh", Executor: "node", GPUCount: &gpus, Workdir: "/home/ada/proj", Env: full, Command: batchCommand(script, nil)}
		if edit != nil {
			edit(&r)
		}
		return r
	}
	tests := map[string]struct {
		script   string
		options  []string
		want     func(script string) api.SubmitRequest
		warnings []string
		err      string
	}{
		"sweep with long options and patterns": {
			script: `#!/bin/bash
#SBATCH --job-name=sweep
#SBATCH --array=0-19%4
#SBATCH --gres=gpu:1
#SBATCH --time=1:00:00
#SBATCH --output=logs/%x_%A_%a.out
#SBATCH --partition=gpu
#SBATCH --mail-type=END,FAIL
python train.py --seed $SLURM_ARRAY_TASK_ID
`,
			want: func(s string) api.SubmitRequest {
				return base(s, 1, map[string]string{"GPUSCHED_STDOUT": "logs/%x_%A_%a.out"}, func(r *api.SubmitRequest) {
					r.Name, r.Array, r.TimeLimit = "sweep", "0-19%4", 3600
				})
			},
			warnings: []string{
				"--mail-type=END,FAIL: notifications (start, end, failure) follow your notification preferences, not each job's",
				"--partition: ignored; there are no partitions: every node serves the one queue",
			},
		},
		"short options, a typed gres, a late #SBATCH ignored": {
			script: `#!/bin/bash

# train the model
#SBATCH -J train -N 1-1
#SBATCH -t 60
#SBATCH --gres=gpu:a100:2   # two A100s
#SBATCH -c 8
#SBATCH --mem=64G
#SBATCH -o %j.out
#SBATCH -e %j.err
module load cuda
#SBATCH --time=5
srun python train.py
`,
			want: func(s string) api.SubmitRequest {
				return base(s, 2, map[string]string{"GPUSCHED_STDOUT": "%j.out", "GPUSCHED_STDERR": "%j.err", "SLURM_CPUS_PER_TASK": "8", "SLURM_MEM_PER_NODE": "64G"},
					func(r *api.SubmitRequest) { r.Name, r.TimeLimit, r.GPUModel = "train", 3600, "a100" })
			},
			warnings: []string{"--mem/--mem-per-cpu: host memory is not reserved here; the job may use the node's"},
		},
		"the command line overrides the script": {
			script:  "#!/bin/sh\n#SBATCH -t 10\n#SBATCH -J mine\n#SBATCH -G 1\necho hi\n",
			options: []string{"--time=2:00:00", "-J", "override", "--gpus=h100:4"},
			want: func(s string) api.SubmitRequest {
				return base(s, 4, nil, func(r *api.SubmitRequest) { r.Name, r.TimeLimit, r.GPUModel = "override", 7200, "h100" })
			},
		},
		"days, dependencies, export, requeue, signal, exclusive": {
			script: `#!/bin/bash
#SBATCH -t 1-12
#SBATCH --gpus-per-node=2
#SBATCH --dependency=afterok:12:13
#SBATCH --export=NONE,WANDB_MODE=offline,WANDB_PROJECT
#SBATCH --requeue
#SBATCH --signal=B:USR1@120
#SBATCH --exclusive
#SBATCH --account=nlp --qos=high
python train.py
`,
			want: func(s string) api.SubmitRequest {
				return base(s, 8, map[string]string{"PATH": "-", "WANDB_MODE": "offline"}, func(r *api.SubmitRequest) {
					r.TimeLimit, r.MaxRetries, r.StopGrace = 36*3600, 1, 120
					r.After = []api.Dependency{{Kind: api.DependOK, JobID: 12}, {Kind: api.DependOK, JobID: 13}}
				})
			},
			warnings: []string{
				"--signal=B:USR1@120: at its time limit the job gets SIGTERM (not USR1), then SIGKILL 120 s later",
				"--account: ignored; usage is counted per user",
				"--qos: ignored; priority comes from the queue's policy (gpusched submit --priority)",
			},
		},
		"two nodes, unlimited time, unknown directives, a late begin": {
			script: `#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --time=0
#SBATCH --frobnicate=1
#SBATCH --begin=now+1hour
#SBATCH --chdir=runs/a
srun torchrun train.py
`,
			want: func(s string) api.SubmitRequest {
				return base(s, 16, map[string]string{"SLURM_NTASKS": "16", "SLURM_NTASKS_PER_NODE": "8"}, func(r *api.SubmitRequest) {
					r.AllowMultiNode, r.Nodes, r.Workdir, r.TimeLimit = true, 2, "/home/ada/proj/runs/a", api.MaxSeconds
				})
			},
			warnings: []string{
				"line 6: #SBATCH --frobnicate=1: not a directive sbatch knows here; ignored",
				"--begin=now+1hour: not supported; the job is queued now (book GPUs for a later start)",
			},
		},
		"no GPUs asked for": {
			script: "#!/bin/sh\n#SBATCH --time=5:00\nhostname\n",
			want: func(s string) api.SubmitRequest {
				return base(s, 1, nil, func(r *api.SubmitRequest) { r.TimeLimit = 300 })
			},
			warnings: []string{"no GPUs asked for (--gres, --gpus): the job gets 1 GPU"},
		},
		"a GPU type no node has": {
			script: "#!/bin/sh\n#SBATCH --gres=gpu:v100:1\nhostname\n",
			err:    `GPU type "v100": no node has it; the cluster has: 1g.10gb, NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3`,
		},
		"a script too long to carry": {
			script: "#!/bin/sh\n#SBATCH -G 1\n" + strings.Repeat("echo padding padding padding\n", 700),
			err:    "a job carries a script of at most about 16 KiB",
		},
		"a wrapped command line": {
			script:  "#!/bin/sh\npython eval.py --all\n",
			options: []string{"--wrap=python eval.py --all", "-G", "2"},
			want: func(s string) api.SubmitRequest {
				return base(s, 2, nil, nil)
			},
		},
		"a bad time": {
			script: "#!/bin/sh\n#SBATCH --time=soon\nhostname\n",
			err:    `--time: "soon" is not a time limit`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := sbatchInput{scriptPath: "job.sh", script: tc.script, environ: environ, cwd: "/home/ada/proj"}
			got, warnings, err := buildSbatch(in, tc.options, func() (clusterGPUs, error) { return cluster, nil })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want(tc.script), got); d != "" {
				t.Errorf("request (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.warnings, warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

// The job's command runs the script's text with its shebang's interpreter
// and arguments, output in GPUSCHED_STDOUT (stderr too unless
// GPUSCHED_STDERR names its own), and ends with the script's status.
func TestBatchCommandRuns(t *testing.T) {
	t.Parallel()
	script := "#!/bin/sh\n#SBATCH -J x\necho \"out $# $1 $2\"\necho err >&2\nexit 3\n"
	tests := map[string]struct {
		env       []string
		before    string // in o.txt before the run
		out, errs string
	}{
		"stdout and stderr together": {env: []string{"GPUSCHED_STDOUT=o.txt"}, out: "out 2 a b c\nerr\n"},
		"apart":                      {env: []string{"GPUSCHED_STDOUT=o.txt", "GPUSCHED_STDERR=e.txt"}, out: "out 2 a b c\n", errs: "err\n"},
		"the first part truncates":   {env: []string{"GPUSCHED_STDOUT=o.txt", "GPUSCHED_NODE_RANK=0"}, before: "old\n", out: "out 2 a b c\nerr\n"},
		"a later part appends":       {env: []string{"GPUSCHED_STDOUT=o.txt", "GPUSCHED_NODE_RANK=1"}, before: "part 0\n", out: "part 0\nout 2 a b c\nerr\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.before != "" {
				if err := os.WriteFile(filepath.Join(dir, "o.txt"), []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("/bin/sh", "-c", batchCommand(script, []string{"a", "b c"}))
			cmd.Dir, cmd.Env = dir, append([]string{"PATH=/usr/bin:/bin"}, tc.env...)
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 {
				t.Fatalf("run: %v, want exit status 3", err)
			}
			for file, want := range map[string]string{"o.txt": tc.out, "e.txt": tc.errs} {
				got, _ := os.ReadFile(filepath.Join(dir, file))
				if string(got) != want {
					t.Errorf("%s: %q, want %q", file, got, want)
				}
			}
		})
	}
}
