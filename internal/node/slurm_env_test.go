package node

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// sbatch's -o and -e patterns expand as Slurm's do, for plain jobs and
// array tasks.
func TestExpandOutput(t *testing.T) {
	t.Parallel()
	plain := &api.StartJob{JobID: 42, Name: "train"}
	task := &api.StartJob{JobID: 57, Name: "sweep", Array: &api.ArrayTask{JobID: 50, TaskID: 7, TaskCount: 20, TaskMax: 19}}
	tests := map[string]struct {
		job     *api.StartJob
		pattern string
		want    string
	}{
		"job id":              {plain, "slurm-%j.out", "slurm-42.out"},
		"name and id":         {plain, "logs/%x-%j.log", "logs/train-42.log"},
		"array id and task":   {task, "%x_%A_%a.out", "sweep_50_7.out"},
		"a task's own job id": {task, "%j.out", "57.out"},
		"zero padded":         {task, "%A_%4a.out", "50_0007.out"},
		"user, node, percent": {plain, "%u@%N-100%%.txt", "ada@gpu1-100%.txt"},
		"outside an array":    {plain, "%A_%a", "42_4294967294"},
		"unknown kept":        {plain, "%q-%", "%q-%"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, expandOutput(tc.pattern, tc.job, "ada", "gpu1")); d != "" {
				t.Error(d)
			}
		})
	}
}

// Every run sees Slurm's job variables; what the submission sent (task
// count, submit directory) is kept, and -o/-e patterns are expanded.
func TestSlurmEnv(t *testing.T) {
	t.Parallel()
	s := &api.StartJob{JobID: 9, Name: "train", GPUs: []int{2, 5}}
	tests := map[string]struct {
		sent map[string]string
		want map[string]string
	}{
		"a plain job": {sent: map[string]string{}, want: map[string]string{"SLURM_NTASKS": "1", "SLURM_NPROCS": "1", "SLURM_SUBMIT_DIR": "/srv/runs"}},
		"sent by sbatch": {
			sent: map[string]string{"SLURM_NTASKS": "8", "SLURM_SUBMIT_DIR": "/home/ada", "SLURM_CPUS_PER_TASK": "4", "GPUSCHED_STDOUT": "%x-%j.out"},
			want: map[string]string{"SLURM_NTASKS": "8", "SLURM_NPROCS": "8", "SLURM_SUBMIT_DIR": "/home/ada", "SLURM_CPUS_PER_TASK": "4", "GPUSCHED_STDOUT": "train-9.out"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{}
			for k, v := range tc.sent {
				env[k] = v
			}
			slurmEnv(env, s, identity{name: "ada"}, "/srv/runs", "gpu1.example.org")
			want := map[string]string{
				"SLURM_JOB_ID": "9", "SLURM_JOBID": "9", "SLURM_JOB_NAME": "train", "SLURM_NNODES": "1", "SLURM_JOB_NUM_NODES": "1",
				"SLURM_JOB_NODELIST": "gpu1", "SLURM_NODELIST": "gpu1", "SLURMD_NODENAME": "gpu1", "SLURM_NODEID": "0",
				"SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_GPUS_ON_NODE": "2", "SLURM_GPUS_PER_NODE": "2",
				"SLURM_JOB_GPUS": "2,5", "SLURM_CLUSTER_NAME": "gpusched",
			}
			for k, v := range tc.want {
				want[k] = v
			}
			if d := cmp.Diff(want, env); d != "" {
				t.Errorf("env (-want +got):\n%s", d)
			}
		})
	}
}
