package scheduler

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// forever is a relative time later than any estimate.
const forever = int64(1<<63 - 1)

// node is one host as the pass sees it.
type node struct {
	id   int64
	gpus []int32 // its present GPUs in index order (global indices)
	free []int32 // its GPUs free now, in index order
	// oneGroup is set when all its GPUs share one NVLink group.
	oneGroup bool
}

// gpu is one present accelerator as the pass sees it.
type gpu struct {
	id     int64
	model  string // GPU.Model as given
	node   int32  // index into pass.nodes
	index  int
	group  int
	class  int32   // index into pass.classes: (lowercased model, memory)
	usable bool    // offered at all: healthy, not drained or foreign, node up and not drained
	holder int32   // running job holding it, -1 none
	free   bool    // usable, not held, not given to a start in this pass
	slots  int     // GPU.SharedSlots: a slot of a GPU shared N ways; 0 not a slot
	frac   float64 // the part of a GPU it is (GPU.Fraction, resolved)
}

// gpuClass is a distinct (model, memory, MIG profile), so that a job's model and
// memory filter is evaluated once per class rather than once per GPU.
type gpuClass struct {
	model   string // lowercased
	mem     int64
	profile string // a MIG device's profile, lowercased; "" a whole GPU
	shared  bool   // a slot of a shared GPU (GPU.SharedSlots > 0)
}

// running is a running job with its GPUs resolved and its estimated end.
type running struct {
	job  *Job
	gpus []int32 // its GPUs present in the snapshot
	end  int64   // estimated end relative to now, never before now (overruns end now)
}

// index builds the pass's view of the cluster: nodes by ID, GPUs by
// (node, index, ID), the availability of every GPU (rule 1 of the README),
// and which running job holds which GPU. Duplicate node and GPU IDs keep
// their first occurrence in that order; a GPU whose node is missing is
// never offered; every GPU listed by a running job is held, and one claimed
// by two running jobs belongs to the one with the lower ID.
func (p *pass) index(s *Snapshot) {
	nodes := slices.Clone(s.Nodes)
	slices.SortStableFunc(nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	nodes = slices.CompactFunc(nodes, func(a, b Node) bool { return a.ID == b.ID })
	nodeAt := make(map[int64]int32, len(nodes))
	p.nodes = make([]node, len(nodes))
	for i, n := range nodes {
		nodeAt[n.ID] = int32(i)
		p.nodes[i].id = n.ID
	}
	gs := slices.Clone(s.GPUs)
	slices.SortStableFunc(gs, func(a, b GPU) int {
		return cmp.Or(cmp.Compare(a.NodeID, b.NodeID), cmp.Compare(a.Index, b.Index), cmp.Compare(a.ID, b.ID))
	})
	p.byID = make(map[int64]int32, len(gs))
	classAt := map[gpuClass]int32{}
	p.gpus = make([]gpu, 0, len(gs))
	for _, g := range gs {
		ni, ok := nodeAt[g.NodeID]
		if _, dup := p.byID[g.ID]; dup || !ok {
			continue
		}
		n := nodes[ni]
		c := gpuClass{strings.ToLower(g.Model), g.MemoryMiB, strings.ToLower(strings.TrimSpace(g.Profile)), g.SharedSlots > 0}
		ci, seen := classAt[c]
		if !seen {
			ci = int32(len(p.classes))
			classAt[c] = ci
			p.classes = append(p.classes, c)
		}
		gi := int32(len(p.gpus))
		p.byID[g.ID] = gi
		usable := g.Healthy && !g.Drained && !g.Foreign && n.Up && !n.Drained
		p.gpus = append(p.gpus, gpu{id: g.ID, model: g.Model, node: ni, index: g.Index, group: g.NVLinkGroup,
			class: ci, usable: usable, holder: -1, slots: max(0, g.SharedSlots), frac: deviceFraction(g)})
		p.nodes[ni].gpus = append(p.nodes[ni].gpus, gi)
		p.largest = max(p.largest, len(p.nodes[ni].gpus))
	}
	for ni := range p.nodes {
		n := &p.nodes[ni]
		n.oneGroup = !slices.ContainsFunc(n.gpus, func(gi int32) bool { return p.gpus[gi].group != p.gpus[n.gpus[0]].group })
	}
	p.indexRunning(s)
	for gi := range p.gpus {
		g := &p.gpus[gi]
		if g.usable && g.holder < 0 {
			g.free = true
			p.nodes[g.node].free = append(p.nodes[g.node].free, int32(gi))
		}
	}
	p.recount()
}

// indexRunning resolves running jobs' GPUs and estimated ends.
func (p *pass) indexRunning(s *Snapshot) {
	rs := make([]*Job, 0, len(s.Running))
	for i := range s.Running {
		rs = append(rs, &s.Running[i])
	}
	slices.SortStableFunc(rs, func(a, b *Job) int { return cmp.Compare(a.ID, b.ID) })
	p.running = make([]running, len(rs))
	for i, j := range rs {
		r := &p.running[i]
		r.job = j
		r.end = max(0, p.rel(j.StartedAt.Add(p.duration(j))))
		if r.end == 0 && p.cfg.isLAS() && p.cfg.LAS.LearnedOverrun {
			r.end = p.overrunLeft(j)
		}
		if j.TimeLimit > 0 { // stopped at its limit: gone within its grace after it
			r.end = min(r.end, max(0, p.rel(j.StartedAt.Add(j.TimeLimit+stopGrace(j)))))
		}
		if j.Stopping { // asked to stop: gone within its grace
			r.end = min(r.end, int64(stopGrace(j)))
		}
		for _, id := range j.GPUs {
			gi, ok := p.byID[id]
			if !ok || p.gpus[gi].holder >= 0 {
				continue
			}
			p.gpus[gi].holder = int32(i)
			r.gpus = append(r.gpus, gi)
		}
	}
}

// recount refreshes the free totals used to reject impossible requests fast.
func (p *pass) recount() {
	p.totalFree, p.maxFree = 0, 0
	for i := range p.nodes {
		f := len(p.nodes[i].free)
		p.totalFree += f
		p.maxFree = max(p.maxFree, f)
	}
}

// take marks GPUs as given to a start in this pass.
func (p *pass) take(gs []int32) {
	for _, gi := range gs {
		g := &p.gpus[gi]
		if !g.free {
			panic("scheduler: internal error: GPU given twice")
		}
		g.free = false
		n := &p.nodes[g.node]
		n.free = slices.DeleteFunc(n.free, func(x int32) bool { return x == gi })
	}
	p.recount()
	p.version++
}

// duration is a job's estimated run time: its estimate, else its learned
// median, else its time limit, else the default; never more than its time
// limit (it is stopped there).
func (p *pass) duration(j *Job) time.Duration {
	d := time.Duration(0)
	if j.EstimatedDuration > 0 && p.cfg.Estimates != EstimatesLearned {
		d = j.EstimatedDuration
	} else {
		d = learnedMedian(j)
	}
	switch {
	case j.TimeLimit > 0 && (d <= 0 || d > j.TimeLimit):
		return j.TimeLimit
	case d > 0:
		return d
	}
	return p.defDur
}

// rel converts an instant to nanoseconds after now, saturating.
func (p *pass) rel(t time.Time) int64 {
	return int64(t.Sub(p.now))
}

// abs converts nanoseconds after now back to an instant.
func (p *pass) abs(x int64) time.Time {
	return p.now.Add(time.Duration(x))
}

// deviceFraction is the part of a GPU g is: GPU.Fraction when set (and at
// most 1), else 1/SharedSlots for a slot, else 1.
func deviceFraction(g GPU) float64 {
	switch {
	case g.Fraction > 0 && g.Fraction <= 1:
		return g.Fraction
	case g.SharedSlots > 0:
		return 1 / float64(g.SharedSlots)
	}
	return 1
}
