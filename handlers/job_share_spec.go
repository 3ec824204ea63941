package handlers

import (
	"slices"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// submittedShare checks a request for part of one shared GPU (gpu_share,
// gpu_memory) against the cluster's shared GPUs and sets it on j.
func submittedShare(s *api.SubmitRequest, j *models.Job, cp models.Capacity) error {
	switch {
	case s.GPUCount != nil && *s.GPUCount != 1:
		return invalid("gpu_count", "a share is part of one GPU: leave gpu_count out (or 1), got %d", *s.GPUCount)
	case s.MemoryGB != nil:
		return invalid("memory_gb", "a share asks its memory with gpu_memory, not memory_gb")
	case s.AllowMultiNode:
		return invalid("allow_multi_node", "a share is part of one GPU on one node")
	case s.GPUShare != nil && (!(*s.GPUShare > 0) || *s.GPUShare > 1):
		return invalid("gpu_share", "must be more than 0 and at most 1 (a fraction of one GPU), got %g", *s.GPUShare)
	}
	j.GPUCount = 1
	if s.GPUShare != nil {
		j.GPUShare = *s.GPUShare
	}
	largest, ok := cp.SharedMemory(j.GPUModel)
	if s.GPUMemory != "" {
		mib, err := api.ParseMemoryMiB(s.GPUMemory)
		if err != nil {
			return invalid("gpu_memory", "%s", err)
		}
		if ok && mib > largest {
			return invalid("gpu_memory", "no shared GPU has %s; the largest has %s", api.FormatMemoryMiB(mib), api.FormatMemoryMiB(largest))
		}
		j.ShareMemoryMiB = mib
	}
	if !ok {
		what := "no GPU in the cluster is shared"
		if j.GPUModel != "" {
			what = "no shared GPU matches " + `"` + j.GPUModel + `"`
		}
		shared := make([]string, 0, len(cp.SharedGPUs))
		for m := range cp.SharedGPUs {
			shared = append(shared, m)
		}
		if len(shared) > 0 {
			what += "; shared GPUs: " + strings.Join(slices.Sorted(slices.Values(shared)), ", ")
		}
		return invalid("gpu_share", "%s (an admin shares GPUs with the node agent's --shared-gpus); ask for whole GPUs with gpu_count", what)
	}
	return nil
}
