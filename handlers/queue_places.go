package handlers

import (
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// placesWords writes the GPUs a job holds for people: "sim-node-1 · GPUs 4, 5".
func placesWords(refs api.GPURefs) string {
	out := make([]views.GPUPlace, len(refs))
	for i, r := range refs {
		out[i] = views.GPUPlace{Node: r.Node, Index: r.Index}
	}
	return views.PlacesWords(out)
}
