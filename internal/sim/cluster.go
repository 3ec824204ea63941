package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Cluster is the simulated cluster: Nodes identical nodes, each with
// GPUsPerNode healthy GPUs of one Model, all NVLink-connected within a node.
type Cluster struct {
	Nodes       int
	GPUsPerNode int
	Model       string
}

// ParseCluster reads a cluster spec NxG:MODEL, e.g. "2x8:H100" for two
// nodes of eight H100s. The model may be left out ("2x8").
func ParseCluster(spec string) (Cluster, error) {
	shape, model, _ := strings.Cut(strings.TrimSpace(spec), ":")
	n, g, ok := strings.Cut(strings.ToLower(shape), "x")
	nodes, err1 := strconv.Atoi(n)
	gpus, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil {
		return Cluster{}, fmt.Errorf("cluster %q is not NxG:MODEL, e.g. 2x8:H100", spec)
	}
	if nodes < 1 || nodes > 10000 || gpus < 1 || gpus > 64 {
		return Cluster{}, fmt.Errorf("cluster %q: want 1–10000 nodes of 1–64 GPUs", spec)
	}
	model = strings.TrimSpace(model)
	if model == "" {
		model = "GPU"
	}
	return Cluster{Nodes: nodes, GPUsPerNode: gpus, Model: model}, nil
}

// String writes the spec back as NxG:MODEL.
func (c Cluster) String() string { return fmt.Sprintf("%dx%d:%s", c.Nodes, c.GPUsPerNode, c.Model) }

// GPUs is the number of GPUs in the cluster.
func (c Cluster) GPUs() int { return c.Nodes * c.GPUsPerNode }

// gpuID is the id of GPU index idx of node (both 0-based); ids run 1…GPUs().
func (c Cluster) gpuID(node, idx int) int64 { return int64(node*c.GPUsPerNode + idx + 1) }

// inventory lists the cluster as the scheduler sees it: nodes 1…Nodes,
// all up, and their GPUs, all healthy, undrained and free of foreign
// processes, one NVLink group per node.
func (c Cluster) inventory() ([]scheduler.Node, []scheduler.GPU) {
	nodes := make([]scheduler.Node, c.Nodes)
	gpus := make([]scheduler.GPU, 0, c.GPUs())
	for n := range c.Nodes {
		nodes[n] = scheduler.Node{ID: int64(n + 1), Name: fmt.Sprintf("sim-node-%d", n+1), Up: true}
		for i := range c.GPUsPerNode {
			gpus = append(gpus, scheduler.GPU{
				ID: c.gpuID(n, i), NodeID: int64(n + 1), Index: i, Model: c.Model,
				NVLinkGroup: 0, Healthy: true,
			})
		}
	}
	return nodes, gpus
}
