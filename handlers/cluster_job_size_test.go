package handlers

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// The overview's "My jobs" says what each job holds: a share, MIG slices by
// profile, or whole GPUs, in the right number.
func TestJobSize(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		job  models.Job
		want string
	}{
		"one GPU":       {models.Job{GPUCount: 1}, "1 GPU"},
		"eight GPUs":    {models.Job{GPUCount: 8, GPUModel: "H100"}, "8 GPUs"},
		"one slice":     {models.Job{GPUCount: 1, GPUModel: "1g.10gb"}, "1 1g.10gb slice"},
		"two slices":    {models.Job{GPUCount: 2, GPUModel: "3g.40gb"}, "2 3g.40gb slices"},
		"a share":       {models.Job{GPUCount: 1, GPUShare: 0.25}, "0.25 of a shared GPU"},
		"a memory size": {models.Job{GPUCount: 1, ShareMemoryMiB: 20 * 1024}, "20G of a shared GPU"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := jobSize(&tc.job); got != tc.want {
				t.Errorf("jobSize = %q, want %q", got, tc.want)
			}
		})
	}
}
