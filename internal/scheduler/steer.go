package scheduler

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
)

// steer points pending jobs that accept any GPU model, on a cluster whose
// free GPUs are of several models, at the model the scoring model expects
// to run them best (Snapshot.Steering). A steerable job has a job type
// with costs in Steering, names no GPU model, is not pinned to a node and
// is not running. On each model with free GPUs it costs SteerCost.Cost
// divided by its smallest learned runtime among those models (so that a
// one-minute and a ten-hour job weigh alike), +Inf where the model has no
// cost for it or too little memory. Sinkhorn then spreads the jobs over the
// free GPUs of each model (assign), so two jobs do not both wait for the
// one fast GPU. A job placed on a model takes it as its GPUModel for this
// pass and, unless its user announced an estimate, that model's learned
// runtime as its estimate; a job left over keeps accepting any model.
// Steering is a preference: when the assignment fails, nothing is steered.
//
// It runs before the queue is ordered, on a copy of the pending jobs (the
// caller's snapshot is not modified), and records what it did in
// p.steered. Jobs are taken in (SubmittedAt, ID) order and models in name
// order, so the same snapshot steers the same way however it is ordered.
func (p *pass) steer(s *Snapshot) {
	if len(s.Steering) == 0 {
		return
	}
	free, memory := map[string]int{}, map[string]int64{}
	for gi := range p.gpus {
		g := &p.gpus[gi]
		if g.free && strings.TrimSpace(g.model) != "" && p.classes[g.class].profile == "" && g.slots == 0 { // whole GPUs only
			free[g.model]++
			memory[g.model] = max(memory[g.model], p.classes[g.class].mem)
		}
	}
	if len(free) < 2 {
		return // one GPU model free: the score changes nothing
	}
	models := slices.Sorted(maps.Keys(free))
	capacity := make([]int, len(models))
	for k, m := range models {
		capacity[k] = free[m]
	}
	table := steerTable(s.Steering)
	var rows []int // indices into s.Pending
	var cost [][]float64
	var demand []int
	for _, i := range p.steerable(s, table) {
		j := &s.Pending[i]
		costs := table[j.JobType]
		ref := math.Inf(1)
		for _, m := range models {
			if c, ok := costs[m]; ok && c.Runtime > 0 {
				ref = min(ref, c.Runtime.Seconds())
			}
		}
		if math.IsInf(ref, 1) {
			ref = 1
		}
		row := make([]float64, len(models))
		open := false
		for k, m := range models {
			c, ok := costs[m]
			row[k] = c.Cost / ref
			if !ok || memory[m] < j.MinMemoryMiB || math.IsNaN(row[k]) || math.IsInf(row[k], 0) {
				row[k] = math.Inf(1) // no cost known, or too small for the job
			}
			open = open || !math.IsInf(row[k], 1)
		}
		if open {
			rows, cost, demand = append(rows, i), append(cost, row), append(demand, j.GPUCount)
		}
	}
	if len(rows) == 0 {
		return
	}
	a, err := assign(cost, demand, capacity, sinkhornOptions{})
	if err != nil {
		return // steering is a preference: without it the job may run on any model
	}
	pending := slices.Clone(s.Pending)
	for r, i := range rows {
		col := a.Column[r]
		if col < 0 {
			continue
		}
		j := &pending[i]
		c := table[j.JobType][models[col]]
		j.GPUModel = models[col]
		if (j.EstimatedDuration <= 0 || j.LearnedEstimate) && c.Runtime > 0 {
			j.EstimatedDuration, j.LearnedEstimate = c.Runtime, true
		}
		p.steered = append(p.steered, Steered{JobID: j.ID, GPUModel: j.GPUModel, EstimatedDuration: j.EstimatedDuration})
	}
	slices.SortFunc(p.steered, func(a, b Steered) int { return cmp.Compare(a.JobID, b.JobID) })
	s.Pending = pending
}

// steerable lists the pending jobs steering may move, as indices into
// s.Pending in (SubmittedAt, ID) order: each ID once (its first entry, as
// the queue keeps it), not running, with a job type in table, no GPU
// model, no node and at least one GPU.
func (p *pass) steerable(s *Snapshot, table map[string]map[string]SteerCost) []int {
	running := make(map[int64]bool, len(p.running))
	for _, r := range p.running {
		running[r.job.ID] = true
	}
	idx := make([]int, 0, len(s.Pending))
	for i := range s.Pending {
		idx = append(idx, i)
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(s.Pending[a].ID, s.Pending[b].ID) })
	idx = slices.CompactFunc(idx, func(a, b int) bool { return s.Pending[a].ID == s.Pending[b].ID })
	idx = slices.DeleteFunc(idx, func(i int) bool {
		j := &s.Pending[i]
		_, known := table[j.JobType]
		return !known || running[j.ID] || j.GPUModel != "" || j.NodeID != 0 || j.GPUCount < 1 || j.IsShare()
	})
	slices.SortStableFunc(idx, func(a, b int) int { return s.Pending[a].SubmittedAt.Compare(s.Pending[b].SubmittedAt) })
	return idx
}

// steerTable indexes the costs by job type and GPU model; of duplicates it
// keeps the smallest (cost, runtime), whatever their order.
func steerTable(cs []SteerCost) map[string]map[string]SteerCost {
	out := map[string]map[string]SteerCost{}
	for _, c := range cs {
		if c.JobType == "" {
			continue
		}
		byModel := out[c.JobType]
		if byModel == nil {
			byModel = map[string]SteerCost{}
			out[c.JobType] = byModel
		}
		if o, ok := byModel[c.GPUModel]; !ok || cmp.Or(cmp.Compare(c.Cost, o.Cost), cmp.Compare(c.Runtime, o.Runtime)) < 0 {
			byModel[c.GPUModel] = c
		}
	}
	return out
}
