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
// count, submit directory) is kept, and -o/-e patterns are expanded; a part
// of a multi-node job sees the job's nodes, its own node id and first task.
func TestSlurmEnv(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		part *api.JobPart
		sent map[string]string
		want map[string]string
	}{
		"a plain job": {sent: map[string]string{}, want: map[string]string{"SLURM_NTASKS": "1", "SLURM_NPROCS": "1", "SLURM_SUBMIT_DIR": "/srv/runs", "SLURM_TASKS_PER_NODE": "1"}},
		"sent by sbatch": {
			sent: map[string]string{"SLURM_NTASKS": "8", "SLURM_SUBMIT_DIR": "/home/ada", "SLURM_CPUS_PER_TASK": "4", "GPUSCHED_STDOUT": "%x-%j.out"},
			want: map[string]string{"SLURM_NTASKS": "8", "SLURM_NPROCS": "8", "SLURM_SUBMIT_DIR": "/home/ada", "SLURM_CPUS_PER_TASK": "4", "GPUSCHED_STDOUT": "train-9.out", "SLURM_TASKS_PER_NODE": "8"},
		},
		"the second part of a two-node job": {
			part: &api.JobPart{Rank: 1, Nodes: []string{"gpu0", "gpu1"}, GPUs: []int{2, 2}},
			sent: map[string]string{"SLURM_NTASKS": "16"},
			want: map[string]string{"SLURM_NTASKS": "16", "SLURM_NPROCS": "16", "SLURM_SUBMIT_DIR": "/srv/runs", "SLURM_TASKS_PER_NODE": "8(x2)",
				"SLURM_NNODES": "2", "SLURM_JOB_NUM_NODES": "2", "SLURM_JOB_NODELIST": "gpu0,gpu1", "SLURM_NODELIST": "gpu0,gpu1",
				"SLURM_NODEID": "1", "SLURM_PROCID": "8"},
		},
		"one task per node, three nodes": {
			part: &api.JobPart{Rank: 2, Nodes: []string{"a", "b", "gpu1"}, GPUs: []int{8, 8, 2}},
			sent: map[string]string{},
			want: map[string]string{"SLURM_NTASKS": "3", "SLURM_NPROCS": "3", "SLURM_SUBMIT_DIR": "/srv/runs", "SLURM_TASKS_PER_NODE": "1(x3)",
				"SLURM_NNODES": "3", "SLURM_JOB_NUM_NODES": "3", "SLURM_JOB_NODELIST": "a,b,gpu1", "SLURM_NODELIST": "a,b,gpu1",
				"SLURM_NODEID": "2", "SLURM_PROCID": "2"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := &api.StartJob{JobID: 9, Name: "train", GPUs: []int{2, 5}, Part: tc.part}
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

// Tasks spread over nodes as Slurm's block distribution does.
func TestTasksPerNode(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		ntasks string
		nodes  int
		want   string
	}{
		"one node":         {"4", 1, "4"},
		"even":             {"16", 2, "8(x2)"},
		"one more first":   {"5", 2, "3,2"},
		"uneven of three":  {"8", 3, "3(x2),2"},
		"fewer than nodes": {"1", 2, "1(x2)"},
		"not a number":     {"x", 2, "1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, tasksPerNode(tc.ntasks, tc.nodes)); d != "" {
				t.Error(d)
			}
		})
	}
}
