package cli

import (
	"strconv"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// askWords says what a job asked for: "1 GPU", "2 nodes × 8 GPUs", "0.25
// of a shared GPU".
func askWords(j api.Job) string {
	switch {
	case shareWords(j) != "":
		return shareWords(j)
	case j.Nodes > 1:
		return words.Count(j.Nodes, "node") + " × " + words.Count(j.GPUsPerNode, "GPU")
	}
	return words.Count(j.RequestedGPUs, "GPU")
}

// shareWords says what a share job asked of a shared GPU (api.ShareWords);
// "" for a job of whole GPUs.
func shareWords(j api.Job) string { return api.ShareWords(j.GPUShare, j.GPUMemoryMiB) }

// gpusColumn is the queue's GPUS column: the count, or a share ("0.25",
// "20G").
func gpusColumn(j api.Job) string {
	switch {
	case j.GPUShare > 0:
		return strconv.FormatFloat(j.GPUShare, 'g', 4, 64)
	case j.GPUMemoryMiB > 0:
		return api.FormatMemoryMiB(j.GPUMemoryMiB)
	}
	return strconv.Itoa(j.RequestedGPUs)
}
