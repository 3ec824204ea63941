package cli

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

func TestShareWords(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		job           api.Job
		words, column string
	}{
		"whole GPUs": {api.Job{RequestedGPUs: 2}, "", "2"},
		"a quarter":  {api.Job{RequestedGPUs: 1, GPUShare: 0.25}, "0.25 of a shared GPU", "0.25"},
		"memory":     {api.Job{RequestedGPUs: 1, GPUMemoryMiB: 20480}, "20G of a shared GPU", "20G"},
		"both":       {api.Job{RequestedGPUs: 1, GPUShare: 0.25, GPUMemoryMiB: 30000}, "0.25 and 30000M of a shared GPU", "0.25"},
	}
	for name, tc := range tests {
		if got := shareWords(tc.job); got != tc.words {
			t.Errorf("%s: shareWords = %q, want %q", name, got, tc.words)
		}
		if got := gpusColumn(tc.job); got != tc.column {
			t.Errorf("%s: gpusColumn = %q, want %q", name, got, tc.column)
		}
	}
}
