package models

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// steerByScore points pending jobs that accept any GPU model, on a cluster
// of several, at the model the scoring model expects to run them best: each
// steerable job (its job type observed) costs ExploitCost on each model
// with free GPUs, and Sinkhorn spreads them over the free GPUs of each
// model (scoring.Assign), so two jobs do not both wait for the one fast
// GPU. A job placed on a model gets it as its GPUModel for this pass, and
// that model's learned runtime as its estimate; a job left over keeps
// accepting any model. The pass does not explore (that is for /v1/score
// callers, within the cap): the same database state steers the same way.
func steerByScore(s *scheduler.Snapshot, st scoring.State, known map[string]bool, typeOf map[int64]string, announced map[int64]bool) {
	free, memory := freeByModel(s)
	if len(free) < 2 {
		return // one GPU model: the score changes nothing
	}
	models := make([]string, 0, len(free))
	for m := range free {
		models = append(models, m)
	}
	slices.Sort(models)
	capacity := make([]int, len(models))
	for i, m := range models {
		capacity[i] = free[m]
	}
	cfg := scoring.DefaultConfig()
	var rows []int // indices into s.Pending
	var cost [][]float64
	var demand []int
	for i, j := range s.Pending {
		jt, ok := typeOf[j.ID]
		if !ok || !known[jt] || j.GPUModel != "" || j.NodeID != 0 {
			continue
		}
		d, err := cfg.Decide(st, scoring.Request{JobType: jt, Candidates: models}, scoring.NewExplorer(0, 1))
		if err != nil {
			continue
		}
		row := make([]float64, len(models))
		for k, t := range d.Candidates {
			row[k] = t.ExploitCost
			if memory[t.GPUType] < j.MinMemoryMiB {
				row[k] = math.Inf(1) // too small for the job
			}
		}
		if slices.ContainsFunc(row, func(c float64) bool { return !math.IsInf(c, 1) }) {
			rows, cost, demand = append(rows, i), append(cost, row), append(demand, j.GPUCount)
		}
	}
	if len(rows) == 0 {
		return
	}
	a, err := scoring.Assign(cost, demand, capacity, scoring.SinkhornOptions{})
	if err != nil {
		return // steering is a preference: without it the job may run on any model
	}
	for r, i := range rows {
		col := a.Column[r]
		if col < 0 {
			continue
		}
		j := &s.Pending[i]
		j.GPUModel = models[col]
		if !announced[j.ID] {
			secs := math.Min(math.Round(cfg.Estimate(st, typeOf[j.ID], models[col]).Mu), scoring.MaxRuntimeS)
			j.EstimatedDuration = max(time.Second, time.Duration(secs)*time.Second)
		}
	}
}

// freeByModel counts the GPUs each model has free now (present, healthy,
// not drained, not foreign, on an up node, not held by a running job) and
// the most memory one of them has.
func freeByModel(s *scheduler.Snapshot) (map[string]int, map[string]int64) {
	up := map[int64]bool{}
	for _, n := range s.Nodes {
		up[n.ID] = n.Up && !n.Drained
	}
	held := map[int64]bool{}
	for _, j := range s.Running {
		for _, g := range j.GPUs {
			held[g] = true
		}
	}
	free, memory := map[string]int{}, map[string]int64{}
	for _, g := range s.GPUs {
		if g.Healthy && !g.Drained && !g.Foreign && up[g.NodeID] && !held[g.ID] && strings.TrimSpace(g.Model) != "" {
			free[g.Model]++
			memory[g.Model] = max(memory[g.Model], g.MemoryMiB)
		}
	}
	return free, memory
}
