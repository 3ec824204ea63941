package handlers

import (
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// placesWords writes the GPUs a job holds for people: "sim-node-1 · GPUs 4, 5".
func placesWords(ps []models.JobPlace) string {
	out := make([]views.GPUPlace, len(ps))
	for i, p := range ps {
		out[i] = views.GPUPlace{Node: p.NodeName, Index: p.Index}
	}
	return views.PlacesWords(out)
}
