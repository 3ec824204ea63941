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
