package scheduler

import (
	"fmt"
	"strings"
)

// filterKey is a job's (or booking's) GPU requirement apart from the count.
type filterKey struct {
	model string // lowercased substring of GPU.Model; "" any
	mem   int64  // minimum MemoryMiB; 0 any
	node  int64  // node ID the GPUs must be on; 0 any
	share bool   // slots of shared GPUs (a share job); else whole GPUs or MIG devices
}

// filter is what the pass knows of one filterKey: which GPU classes match,
// and how many matching GPUs the cluster has, present and usable.
type filter struct {
	key      filterKey
	match    []bool // by gpuClass
	maxNode  int    // most present matching GPUs on one node
	total    int    // present matching GPUs
	usableMx int    // most usable matching GPUs on one node
	usable   int    // usable matching GPUs
}

// filterFor returns the cached filter of a model and memory requirement
// on node (0: any node).
func (p *pass) filterFor(model string, mem, node int64) *filter {
	return p.filterOf(filterKey{strings.ToLower(model), mem, node, false})
}

// filterForJob returns the cached filter of a pending job: a share job's
// matches slots of shared GPUs (share.go), any other's as filterFor.
func (p *pass) filterForJob(j *Job) *filter {
	if j.IsShare() {
		return p.filterOf(filterKey{strings.ToLower(j.GPUModel), 0, j.NodeID, true})
	}
	return p.filterFor(j.GPUModel, j.MinMemoryMiB, j.NodeID)
}

// filterOf returns the cached filter of k.
func (p *pass) filterOf(k filterKey) *filter {
	node := k.node
	if f, ok := p.filters[k]; ok {
		return f
	}
	f := &filter{key: k, match: make([]bool, len(p.classes))}
	for i, c := range p.classes {
		f.match[i] = classMatches(c, k.model, k.mem, k.share)
	}
	for ni := range p.nodes {
		if node != 0 && p.nodes[ni].id != node {
			continue
		}
		present, usable := 0, 0
		for _, gi := range p.nodes[ni].gpus {
			g := &p.gpus[gi]
			if f.match[g.class] {
				present++
				if g.usable {
					usable++
				}
			}
		}
		f.maxNode, f.total = max(f.maxNode, present), f.total+present
		f.usableMx, f.usable = max(f.usableMx, usable), f.usable+usable
	}
	p.filters[k] = f
	return f
}

// ok reports whether GPU gi satisfies the filter.
func (f *filter) ok(p *pass, gi int32) bool {
	g := &p.gpus[gi]
	return f.match[g.class] && (f.key.node == 0 || p.nodes[g.node].id == f.key.node)
}

// neverFits explains a job no placement can ever satisfy, counting every
// present GPU, unavailable ones too; "" when it could fit some day.
func (p *pass) neverFits(j *Job, f *filter) string {
	switch {
	case j.GPUCount < 1:
		return fmt.Sprintf("asks for %d GPUs; a job needs at least 1", j.GPUCount)
	case f.total == 0 && j.GPUModel == "" && j.MinMemoryMiB == 0:
		return "the cluster has no GPUs"
	case f.total == 0 && j.MinMemoryMiB == 0 && IsMIGProfile(j.GPUModel):
		return fmt.Sprintf("no MIG device in the cluster has profile %q", strings.TrimSpace(j.GPUModel))
	case f.total == 0 && j.MinMemoryMiB == 0:
		return fmt.Sprintf("no GPU in the cluster matches model %q", j.GPUModel)
	case f.total == 0 && j.GPUModel == "":
		return fmt.Sprintf("no GPU in the cluster has %d MiB of memory", j.MinMemoryMiB)
	case f.total == 0:
		return fmt.Sprintf("no GPU in the cluster matches model %q with %d MiB of memory", j.GPUModel, j.MinMemoryMiB)
	case j.Shaped():
		return p.shapeNeverFits(j, f)
	case j.AllowMultiNode && j.GPUCount > f.total:
		return fmt.Sprintf("needs %s; the cluster has %d", p.gpuWords(j), f.total)
	case !j.AllowMultiNode && j.GPUCount > f.maxNode:
		return fmt.Sprintf("needs %s on one node; the largest node has %d", p.gpuWords(j), f.maxNode)
	}
	return ""
}

// unplaceable explains a job that fits the cluster on paper but not the
// GPUs that are usable now (unhealthy, drained, foreign or down GPUs
// excluded), so that no estimate can be made; "" when it can be placed once
// enough running jobs and bookings end.
func (p *pass) unplaceable(j *Job, f *filter) string {
	switch {
	case j.Shaped():
		return p.shapeUnplaceable(j, f)
	case j.AllowMultiNode && j.GPUCount > f.usable:
		return fmt.Sprintf("needs %s; only %d usable (the others are unhealthy, drained, foreign or down)",
			p.gpuWords(j), f.usable)
	case !j.AllowMultiNode && j.GPUCount > f.usableMx:
		return fmt.Sprintf("needs %s on one node; at most %d usable on any node (the others are unhealthy, drained, foreign or down)",
			p.gpuWords(j), f.usableMx)
	}
	return ""
}

// gpuWords says what a job asks for: "4 GPUs", "1 \"A100\" GPU with at
// least 40960 MiB", "2 1g.10gb MIG devices".
func (p *pass) gpuWords(j *Job) string {
	s := fmt.Sprint(j.GPUCount)
	switch {
	case IsMIGProfile(j.GPUModel) && j.GPUCount == 1:
		s += " " + strings.TrimSpace(j.GPUModel) + " MIG device"
	case IsMIGProfile(j.GPUModel):
		s += " " + strings.TrimSpace(j.GPUModel) + " MIG devices"
	case j.GPUModel != "" && j.GPUCount == 1:
		s += fmt.Sprintf(" %q GPU", j.GPUModel)
	case j.GPUModel != "":
		s += fmt.Sprintf(" %q GPUs", j.GPUModel)
	case j.GPUCount == 1:
		s += " GPU"
	default:
		s += " GPUs"
	}
	if j.MinMemoryMiB > 0 {
		s += fmt.Sprintf(" with at least %d MiB", j.MinMemoryMiB)
	}
	return s
}
