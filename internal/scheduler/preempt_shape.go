package scheduler

import (
	"cmp"
	"slices"
)

// shapedCover picks, for a shaped head (exactly n distinct nodes with per
// GPUs each), the cheapest set of candidate victims after whose stop n
// nodes each have per useful GPUs: base[ni] is what node ni has free or
// freeing already, frees[ni] what each candidate frees there (a job on
// several nodes frees GPUs on each, and costs once). Enough GPUs in all is
// not enough: they must be per on each of n nodes. Every victim of the set
// is needed: without any one of them fewer than n nodes would hold per.
// It returns the empty set when base alone does, nil when not even every
// candidate together does (then nothing is preempted). Up to
// exhaustiveVictims candidates every subset is tried; beyond, each node's
// own cheapest cover is found and the n cheapest nodes' covers are joined,
// then pruned.
func (p *pass) shapedCover(frees []map[int32]int, base []int, n, per int) *victimSet {
	if shapeHolds(frees, base, nil, n, per) {
		return &victimSet{}
	}
	in := map[int32]bool{}
	for ni := range frees {
		for v := range frees[ni] {
			in[v] = true
		}
	}
	if !shapeHolds(frees, base, in, n, per) {
		return nil
	}
	cands := make([]int32, 0, len(in))
	for v := range in {
		cands = append(cands, v)
	}
	slices.Sort(cands)
	var runs []int32
	if len(cands) <= exhaustiveVictims {
		var best *victimSet
		for mask := 1; mask < 1<<len(cands); mask++ {
			clear(in)
			var set []int32
			for i, v := range cands {
				if mask&(1<<i) != 0 {
					in[v], set = true, append(set, v)
				}
			}
			if !shapeHolds(frees, base, in, n, per) {
				continue
			}
			if s := p.victimSet(set); best == nil || s.cheaper(best) {
				best = s
			}
		}
		runs = best.runs
	} else {
		runs = p.nodeCovers(frees, base, n, per)
	}
	return p.victimSet(p.pruneShaped(frees, base, runs, n, per))
}

// nodeCovers joins the cheapest covers of the n nodes cheapest to bring to
// per useful GPUs (a node that has them already costs nothing).
func (p *pass) nodeCovers(frees []map[int32]int, base []int, n, per int) []int32 {
	type nodeCover struct {
		ni  int
		set *victimSet
	}
	var covers []nodeCover
	for ni := range base {
		set := &victimSet{}
		if base[ni] < per {
			if set = p.cheapestCover(frees[ni], per-base[ni]); set == nil {
				continue
			}
		}
		covers = append(covers, nodeCover{ni, set})
	}
	slices.SortStableFunc(covers, func(a, b nodeCover) int {
		if a.set.cheaper(b.set) {
			return -1
		}
		if b.set.cheaper(a.set) {
			return 1
		}
		return cmp.Compare(a.ni, b.ni)
	})
	var runs []int32
	for _, c := range covers[:min(n, len(covers))] {
		for _, v := range c.set.runs {
			if !slices.Contains(runs, v) {
				runs = append(runs, v)
			}
		}
	}
	slices.Sort(runs)
	return runs
}

// pruneShaped drops, costliest first, the victims the shape holds
// without; what is left are each needed.
func (p *pass) pruneShaped(frees []map[int32]int, base []int, runs []int32, n, per int) []int32 {
	order := slices.Clone(runs)
	slices.SortStableFunc(order, func(a, b int32) int { return -cmp.Compare(p.victimCost(a), p.victimCost(b)) })
	in := map[int32]bool{}
	for _, v := range runs {
		in[v] = true
	}
	for _, v := range order {
		in[v] = false
		if !shapeHolds(frees, base, in, n, per) {
			in[v] = true
		}
	}
	out := runs[:0:0]
	for _, v := range runs {
		if in[v] {
			out = append(out, v)
		}
	}
	return out
}

// shapeHolds reports whether at least n nodes have per useful GPUs once
// the victims in stop: base[ni] plus what those victims free on each.
func shapeHolds(frees []map[int32]int, base []int, in map[int32]bool, n, per int) bool {
	c := 0
	for ni := range base {
		k := base[ni]
		for v, f := range frees[ni] {
			if in[v] {
				k += f
			}
		}
		if k >= per {
			c++
		}
	}
	return c >= n
}
