package handlers

import (
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxNodes bounds a job's shape.
const maxNodes = 1024

// submittedShape checks a submission's shape (nodes, gpus_per_node) and
// sets it on j: a job on more than one node takes exactly that many nodes
// with the same number of GPUs on each, and may span nodes. With
// gpus_per_node and no gpu_count, gpu_count becomes nodes × gpus_per_node.
func submittedShape(s *api.SubmitRequest, j *models.Job, cp models.Capacity) error {
	n, per := s.Nodes, s.GPUsPerNode
	switch {
	case n == 0 && per == 0:
		return nil
	case n < 0 || n > maxNodes:
		return invalid("nodes", "must be 1–%d, got %d", maxNodes, n)
	case per < 0:
		return invalid("gpus_per_node", "must be positive, got %d", per)
	case per > 0 && n == 0:
		return invalid("gpus_per_node", "needs nodes: how many nodes get that many GPUs each")
	case s.GPUShare != nil || s.GPUMemory != "":
		return invalid("nodes", "a job on a share of one GPU cannot ask for nodes")
	case per > 0 && s.GPUCount != nil && *s.GPUCount != n*per:
		return invalid("gpu_count", "%d is not nodes %d × gpus_per_node %d; give gpu_count or gpus_per_node, or make them agree",
			*s.GPUCount, n, per)
	case per == 0 && s.GPUCount == nil:
		return invalid("gpu_count", "required with nodes (or give gpus_per_node)")
	}
	if per > 0 && s.GPUCount == nil {
		c := n * per
		s.GPUCount = &c
	}
	count := *s.GPUCount
	if per == 0 {
		if count%n != 0 {
			return invalid("gpu_count", "%s do not divide evenly among %s; give gpus_per_node", words.Count(count, "GPU"), words.Count(n, "node"))
		}
		per = count / n
	}
	if n > 1 {
		j.Nodes, j.AllowMultiNode = n, true
	}
	if most := largestFor(cp, cp.MatchModels(strings.TrimSpace(s.GPUModel))); cp.TotalGPUs > 0 && per > most {
		return invalid("gpus_per_node", "%s on each node do not fit: the largest node has %d", words.Count(per, "GPU"), most)
	}
	return nil
}
