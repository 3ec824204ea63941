package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// exhaustiveVictims is the most candidate victims whose subsets are all
// tried; beyond it the choice is greedy by cost per GPU freed, then pruned.
const exhaustiveVictims = 12

// victimSet is a choice of running jobs to stop, with its cost.
type victimSet struct {
	runs    []int32 // indices into pass.running, ascending
	cost    float64 // Σ GPUs × seconds run: the work lost
	maxPrio int
	newest  int64 // latest StartedAt, Unix ns
}

// cheaper orders victim sets: least work lost, then lower priorities, then
// fewer jobs, then newer jobs, then lower job IDs.
func (a *victimSet) cheaper(b *victimSet) bool {
	if c := cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.maxPrio, b.maxPrio),
		cmp.Compare(len(a.runs), len(b.runs)), -cmp.Compare(a.newest, b.newest)); c != 0 {
		return c < 0
	}
	return slices.Compare(a.runs, b.runs) < 0
}

// preempt looks, for the head, for the least costly set of running jobs to
// stop so that it can be placed: jobs that are Preemptible, of strictly
// lower Priority than the head's, and have run at least MinRuntime (or
// checkpointing jobs LAS has demoted, see demotable). GPUs
// count only when usable, matching and not kept from the head by a
// booking. GPUs of jobs already stopping count as freeing: when they (with
// the free ones) suffice, nothing more is stopped and the head waits for
// them; a stopping job is never chosen again. One node is tried first
// (every subset of up to 12 candidates on it, greedy beyond); a multi-node
// head spans nodes only when no single node works (greedy, then pruned); a
// shaped head needs its GPUs on each of its nodes (shapedCover). It
// preempts only when the head can then be placed, returns the new victims,
// the stopping jobs it waits for and the head's GPUs, and records the
// preemptions; nil GPUs when nothing helps. The head does not start in this
// plan: its GPUs are released by a later pass. Only the head preempts, at
// most once per pass.
func (p *pass) preempt(qj *qjob, rq *request) (victims, waits, gs []int32) {
	j := qj.job
	if p.lostCapped(0) {
		return nil, nil, nil
	}
	useful := func(gi int32) bool {
		g := &p.gpus[gi]
		return g.usable && rq.f.ok(p, gi) && (p.pins[gi] == nil || p.blockedBy(gi, rq.user, rq.dur) < 0)
	}
	perNode := make([]map[int32]int, len(p.nodes))
	freeing := make([]int, len(p.nodes)) // useful GPUs of stopping jobs
	for i := range p.running {
		r := &p.running[i]
		if r.job.Stopping {
			for _, gi := range r.gpus {
				if useful(gi) {
					freeing[p.gpus[gi].node]++
				}
			}
			continue
		}
		byPrio := p.cfg.Preemption && r.job.Preemptible && r.job.Priority < j.Priority &&
			p.now.Sub(r.job.StartedAt) >= time.Duration(p.cfg.MinRuntime)
		if (!byPrio && !p.demotable(r.job, j)) || len(r.gpus) == 0 {
			continue
		}
		for _, gi := range r.gpus {
			if useful(gi) {
				n := p.gpus[gi].node
				if perNode[n] == nil {
					perNode[n] = map[int32]int{}
				}
				perNode[n][int32(i)]++
			}
		}
	}
	bases := freeing // useful GPUs free or freeing, per node
	for ni := range p.nodes {
		for _, gi := range p.nodes[ni].free {
			if useful(gi) {
				bases[ni]++
			}
		}
	}
	var best *victimSet
	if rq.nodes > 1 {
		best = p.shapedCover(perNode, bases, rq.nodes, rq.perNode()) // per GPUs on each of its nodes
	} else {
		best = p.nodeCover(perNode, bases, rq)
	}
	if best == nil || (p.cfg.isLAS() && len(best.runs) > 0 && p.lostCapped(best.cost)) {
		return nil, nil, nil
	}
	try := *rq
	try.extra, try.avoid, try.onlyOwn = make([]bool, len(p.gpus)), nil, false
	for i := range p.running {
		if p.running[i].job.Stopping {
			for _, gi := range p.running[i].gpus {
				try.extra[gi] = true
			}
		}
	}
	for _, v := range best.runs {
		for _, gi := range p.running[v].gpus {
			try.extra[gi] = true
		}
	}
	gs = p.placeNow(&try)
	if gs == nil {
		return nil, nil, nil
	}
	touches := func(v int32) bool {
		return slices.ContainsFunc(p.running[v].gpus, func(gi int32) bool { _, ok := slices.BinarySearch(gs, gi); return ok })
	}
	for _, v := range best.runs {
		if touches(v) {
			victims = append(victims, v)
		}
	}
	for i := range p.running {
		if p.running[i].job.Stopping && touches(int32(i)) {
			waits = append(waits, int32(i))
		}
	}
	if len(victims) == 0 && len(waits) == 0 { // the free GPUs alone would do: nothing to stop
		return nil, nil, nil
	}
	for _, v := range victims {
		r := p.running[v].job
		reason := fmt.Sprintf("preempted for job %d (priority %d), which needs %s", j.ID, j.Priority, p.gpuWords(j))
		rule := RulePriority
		if !(r.Preemptible && r.Priority < j.Priority) {
			rule = RuleLASDemotion
			reason = fmt.Sprintf("preempted for job %d, which needs %s: checkpointed and demoted to GPU-time level %d of %d (has had %s GPU-h)",
				j.ID, p.gpuWords(j), p.level(p.attained(r))+1, len(p.cfg.LAS.Thresholds)+1, hoursWords(p.attained(r)/3600))
		}
		p.preempts = append(p.preempts, Preemption{JobID: r.ID, ForJobID: j.ID, Reason: reason, Rule: rule})
	}
	return victims, waits, gs
}

// cheapestCover picks the cheapest set of candidate victims (each freeing
// the given number of useful GPUs) that frees at least need GPUs; nil when
// all of them together do not.
func (p *pass) cheapestCover(frees map[int32]int, need int) *victimSet {
	if need <= 0 || len(frees) == 0 {
		return nil
	}
	vs := make([]int32, 0, len(frees))
	total := 0
	for v, n := range frees {
		vs, total = append(vs, v), total+n
	}
	if total < need {
		return nil
	}
	slices.Sort(vs)
	if len(vs) > exhaustiveVictims {
		return p.greedyCover(vs, frees, need)
	}
	// Totals per subset without allocating; the set is built only when it wins.
	cost, prio, start, free := make([]float64, len(vs)), make([]int, len(vs)), make([]int64, len(vs)), make([]int, len(vs))
	for i, v := range vs {
		j := p.running[v].job
		cost[i], prio[i], start[i], free[i] = p.victimCost(v), j.Priority, j.StartedAt.UnixNano(), frees[v]
	}
	var best *victimSet
	for mask := 1; mask < 1<<len(vs); mask++ {
		s := victimSet{maxPrio: -1 << 31, newest: -1 << 63}
		n, count := 0, 0
		for i := range vs {
			if mask&(1<<i) != 0 {
				n, count, s.cost = n+free[i], count+1, s.cost+cost[i]
				s.maxPrio, s.newest = max(s.maxPrio, prio[i]), max(s.newest, start[i])
			}
		}
		if n < need {
			continue
		}
		if best != nil {
			c := cmp.Or(cmp.Compare(s.cost, best.cost), cmp.Compare(s.maxPrio, best.maxPrio),
				cmp.Compare(count, len(best.runs)), -cmp.Compare(s.newest, best.newest))
			if c > 0 {
				continue
			}
		}
		for i, v := range vs {
			if mask&(1<<i) != 0 {
				s.runs = append(s.runs, v)
			}
		}
		if best == nil || s.cheaper(best) {
			best = &s
		}
	}
	return best
}

// greedyCover adds victims by cost per GPU freed until enough, then drops
// the costliest ones that are not needed.
func (p *pass) greedyCover(vs []int32, frees map[int32]int, need int) *victimSet {
	slices.SortStableFunc(vs, func(a, b int32) int {
		return cmp.Compare(p.victimCost(a)/float64(frees[a]), p.victimCost(b)/float64(frees[b]))
	})
	var set []int32
	n := 0
	for _, v := range vs {
		if n >= need {
			break
		}
		set, n = append(set, v), n+frees[v]
	}
	for i := len(set) - 1; i >= 0; i-- {
		if n-frees[set[i]] >= need {
			n -= frees[set[i]]
			set = slices.Delete(set, i, i+1)
		}
	}
	slices.Sort(set)
	return p.victimSet(set)
}

// victimCost is the work a victim loses: its GPUs × seconds run, or, for a
// job that checkpoints, its GPUs × its stop grace (it keeps its progress).
func (p *pass) victimCost(v int32) float64 {
	j := p.running[v].job
	run := max(0, p.now.Sub(j.StartedAt))
	if j.Checkpoint {
		run = min(run, stopGrace(j))
	}
	return float64(len(j.GPUs)) * run.Seconds()
}

// victimSet totals a set of victims.
func (p *pass) victimSet(runs []int32) *victimSet {
	s := &victimSet{runs: runs}
	for i, v := range runs {
		j := p.running[v].job
		s.cost += p.victimCost(v)
		if ns := j.StartedAt.UnixNano(); i == 0 || ns > s.newest {
			s.newest = ns
		}
		if i == 0 || j.Priority > s.maxPrio {
			s.maxPrio = j.Priority
		}
	}
	return s
}

// nodeCover picks the cheapest victims for an unshaped head: on one node
// (the cheapest such node's cover), else, for a head that may span nodes,
// across them; the empty set when what is free and freeing does, nil when
// nothing does.
func (p *pass) nodeCover(perNode []map[int32]int, bases []int, rq *request) *victimSet {
	var best *victimSet
	all, allBase := map[int32]int{}, 0
	for ni := range p.nodes {
		base := bases[ni]
		allBase += base
		for v, n := range perNode[ni] {
			all[v] += n
		}
		set := p.cheapestCover(perNode[ni], rq.k-base)
		if base >= rq.k {
			set = &victimSet{} // what is free and freeing does: stop nothing more
		}
		if set != nil && (best == nil || set.cheaper(best)) {
			best = set
		}
	}
	if best == nil && rq.multi {
		best = p.cheapestCover(all, rq.k-allBase)
		if allBase >= rq.k {
			best = &victimSet{}
		}
	}
	return best
}
