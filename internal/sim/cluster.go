package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Cluster is the simulated cluster: Nodes identical nodes, each with
// GPUsPerNode healthy GPUs of one Model, all NVLink-connected within a node,
// then the node groups of More, each of its own GPU model. On a cluster of
// several GPU models the core steers jobs between them (Workload.Steer).
type Cluster struct {
	Nodes       int
	GPUsPerNode int
	Model       string
	// Slowdown is how many times its trace runtime a job takes on these
	// GPUs (the spec's "@2"); 0 means 1, the trace's own speed.
	Slowdown float64
	// More are further node groups, after these nodes in ID order.
	More []NodeGroup
	// MIG splits the cluster's first GPUs (in node order) into MIG
	// devices (ParseMIG); nil: every GPU whole.
	MIG []MIGGroup
	// Shared shares the GPUs after the MIG layout's (in node order) into
	// slots for share jobs (ParseShared); nil: none.
	Shared []SharedGroup
}

// NodeGroup is Nodes identical nodes of GPUsPerNode GPUs of one Model, on
// which a job takes Slowdown times its trace runtime (0: 1).
type NodeGroup struct {
	Nodes       int
	GPUsPerNode int
	Model       string
	Slowdown    float64
}

// ParseCluster reads a cluster spec NxG:MODEL, e.g. "2x8:H100" for two
// nodes of eight H100s. The model may be left out ("2x8"). "@F" after the
// model makes jobs run F times their trace runtime there, and "+" joins
// groups of other models: "1x8:L4@2.5+1x8:H100".
func ParseCluster(spec string) (Cluster, error) {
	var groups []NodeGroup
	for part := range strings.SplitSeq(spec, "+") {
		g, err := parseGroup(part)
		if err != nil {
			return Cluster{}, fmt.Errorf("cluster %q: %w", spec, err)
		}
		groups = append(groups, g)
	}
	c := Cluster{Nodes: groups[0].Nodes, GPUsPerNode: groups[0].GPUsPerNode, Model: groups[0].Model, Slowdown: groups[0].Slowdown}
	if len(groups) > 1 {
		c.More = groups[1:]
	}
	if c.NodeCount() > 10000 {
		return Cluster{}, fmt.Errorf("cluster %q: want at most 10000 nodes", spec)
	}
	return c, nil
}

// parseGroup reads one NxG[:MODEL[@SLOWDOWN]].
func parseGroup(spec string) (NodeGroup, error) {
	shape, model, _ := strings.Cut(strings.TrimSpace(spec), ":")
	n, g, ok := strings.Cut(strings.ToLower(shape), "x")
	nodes, err1 := strconv.Atoi(n)
	gpus, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil {
		return NodeGroup{}, fmt.Errorf("%q is not NxG:MODEL, e.g. 2x8:H100", strings.TrimSpace(spec))
	}
	if nodes < 1 || nodes > 10000 || gpus < 1 || gpus > 64 {
		return NodeGroup{}, fmt.Errorf("%q: want 1–10000 nodes of 1–64 GPUs", strings.TrimSpace(spec))
	}
	model, slow, hasSlow := strings.Cut(model, "@")
	grp := NodeGroup{Nodes: nodes, GPUsPerNode: gpus, Model: strings.TrimSpace(model)}
	if grp.Model == "" {
		grp.Model = "GPU"
	}
	if hasSlow {
		f, err := strconv.ParseFloat(strings.TrimSpace(slow), 64)
		if err != nil || !(f >= 0.01 && f <= 100) {
			return NodeGroup{}, fmt.Errorf("%q: the slowdown after @ must be a number from 0.01 to 100", strings.TrimSpace(spec))
		}
		grp.Slowdown = f
	}
	return grp, nil
}

// String writes the spec back as NxG:MODEL[@F][+…].
func (c Cluster) String() string {
	parts := make([]string, 0, 1+len(c.More))
	for _, g := range c.groups() {
		s := fmt.Sprintf("%dx%d:%s", g.Nodes, g.GPUsPerNode, g.Model)
		if g.Slowdown != 0 && g.Slowdown != 1 {
			s += "@" + strconv.FormatFloat(g.Slowdown, 'g', -1, 64)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "+")
}

// groups lists the cluster's node groups in node ID order.
func (c Cluster) groups() []NodeGroup {
	return append([]NodeGroup{{Nodes: c.Nodes, GPUsPerNode: c.GPUsPerNode, Model: c.Model, Slowdown: c.Slowdown}}, c.More...)
}

// GPUs is the number of GPUs in the cluster.
func (c Cluster) GPUs() int {
	n := 0
	for _, g := range c.groups() {
		n += g.Nodes * g.GPUsPerNode
	}
	return n
}

// NodeCount is the number of nodes in the cluster.
func (c Cluster) NodeCount() int {
	n := 0
	for _, g := range c.groups() {
		n += g.Nodes
	}
	return n
}

// MaxGPUsPerNode is the most GPUs one node has.
func (c Cluster) MaxGPUsPerNode() int {
	n := 0
	for _, g := range c.groups() {
		n = max(n, g.GPUsPerNode)
	}
	return n
}

// Models lists the cluster's GPU models, each once, in node ID order.
func (c Cluster) Models() []string {
	var out []string
	for _, g := range c.groups() {
		if !slices.Contains(out, g.Model) {
			out = append(out, g.Model)
		}
	}
	return out
}

// inventory lists the cluster as the scheduler sees it: nodes 1…NodeCount,
// all up, and their devices, IDs 1… in node order, all healthy, undrained
// and free of foreign processes, one NVLink group per node: each GPU whole,
// or, for the first GPUs the MIG layout splits, its MIG devices (same node
// and index, the group's profile). With them, by device ID (index 0
// unused), the slowdown of each and its fraction of a GPU.
func (c Cluster) inventory() ([]scheduler.Node, []scheduler.GPU, []float64, []float64) {
	nodes := make([]scheduler.Node, 0, c.NodeCount())
	gpus := make([]scheduler.GPU, 0, c.GPUs())
	slow := make([]float64, 1, c.GPUs()+1)
	frac := make([]float64, 1, c.GPUs()+1)
	k := 0 // GPUs so far, in node order
	for _, grp := range c.groups() {
		f := grp.Slowdown
		if f == 0 {
			f = 1
		}
		for range grp.Nodes {
			id := int64(len(nodes) + 1)
			nodes = append(nodes, scheduler.Node{ID: id, Name: fmt.Sprintf("sim-node-%d", id), Up: true})
			for i := range grp.GPUsPerNode {
				g := scheduler.GPU{NodeID: id, Index: i, Model: grp.Model, NVLinkGroup: 0, Healthy: true}
				devices, fraction := 1, 1.0
				if m := c.migOf(k); m != nil {
					g.Profile, devices, fraction = m.Profile, m.PerGPU, profileFraction(m.Profile)
				} else if sh := c.sharedOf(k); sh != nil {
					g.SharedSlots, devices, fraction = sh.Slots, sh.Slots, 1/float64(sh.Slots)
				}
				g.Fraction = fraction // quotas count a device as its part of a GPU
				for range devices {
					g.ID = int64(len(gpus) + 1)
					gpus = append(gpus, g)
					slow, frac = append(slow, f), append(frac, fraction)
				}
				k++
			}
		}
	}
	return nodes, gpus, slow, frac
}
