package scheduler

import (
	"cmp"
	"slices"
)

// cand is a GPU a request may use; pref marks the GPUs it should take first
// (the owner's booked GPUs, a future booking's soon-free GPUs).
type cand struct {
	g    int32
	pref bool
}

// nodeCands is one node's run of candidates in pass.cands.
type nodeCands struct {
	node   int32
	lo, hi int32 // pass.cands[lo:hi]
	pref   int
}

// resetCands starts a new candidate list.
func (p *pass) resetCands() { p.cands, p.ncs = p.cands[:0], p.ncs[:0] }

// addCand adds a candidate; GPUs must come in ascending global order.
func (p *pass) addCand(gi int32, pref bool) {
	n := p.gpus[gi].node
	if len(p.ncs) == 0 || p.ncs[len(p.ncs)-1].node != n {
		p.ncs = append(p.ncs, nodeCands{node: n, lo: int32(len(p.cands)), hi: int32(len(p.cands))})
	}
	nc := &p.ncs[len(p.ncs)-1]
	p.cands = append(p.cands, cand{gi, pref})
	nc.hi++
	if pref {
		nc.pref++
	}
}

// fillCands makes gs (ascending) the candidate list.
func (p *pass) fillCands(gs []int32, pref func(int32) bool) {
	p.resetCands()
	for _, gi := range gs {
		p.addCand(gi, pref(gi))
	}
}

// choose picks k of the current candidates, or nil when they cannot hold
// the request. One node is preferred: the node with the most preferred
// GPUs (up to k), then the best fit (fewest candidates that still hold k,
// so whole nodes stay free for big jobs), then one where the GPUs can share
// an NVLink group, then the lowest node ID. Only when no node holds k and
// multi is set does it span nodes: the fewest nodes (largest first), the
// last one the best fit for what remains. Within a node see pickInNode.
// The result is in GPU order (node ID, then index).
func (p *pass) choose(k int, multi bool) []int32 {
	best := -1
	for i := range p.ncs {
		nc := &p.ncs[i]
		if int(nc.hi-nc.lo) < k {
			continue
		}
		if best < 0 || p.betterNode(nc, &p.ncs[best], k) {
			best = i
		}
	}
	if best >= 0 {
		out := p.pickInNode(&p.ncs[best], k, make([]int32, 0, k))
		slices.Sort(out)
		return out
	}
	total := 0
	for _, nc := range p.ncs {
		total += int(nc.hi - nc.lo)
	}
	if !multi || total < k {
		return nil
	}
	order := make([]int, len(p.ncs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := &p.ncs[a], &p.ncs[b]
		return cmp.Or(-cmp.Compare(x.hi-x.lo, y.hi-y.lo), -cmp.Compare(x.pref, y.pref))
	})
	out := make([]int32, 0, k)
	r, used := k, 0
	for used < len(order) && int(p.ncs[order[used]].hi-p.ncs[order[used]].lo) < r {
		nc := &p.ncs[order[used]]
		out = p.pickInNode(nc, int(nc.hi-nc.lo), out)
		r -= int(nc.hi - nc.lo)
		used++
	}
	last := -1 // best fit for the remainder among the nodes not used yet
	for _, i := range order[used:] {
		if n := int(p.ncs[i].hi - p.ncs[i].lo); n >= r && (last < 0 || n < int(p.ncs[last].hi-p.ncs[last].lo)) {
			last = i
		}
	}
	out = p.pickInNode(&p.ncs[last], r, out)
	slices.Sort(out)
	return out
}

// betterNode orders nodes for a single-node placement of k GPUs.
func (p *pass) betterNode(a, b *nodeCands, k int) bool {
	if c := cmp.Compare(min(a.pref, k), min(b.pref, k)); c != 0 {
		return c > 0
	}
	if c := cmp.Compare(a.hi-a.lo, b.hi-b.lo); c != 0 {
		return c < 0
	}
	fa, fb := p.largestGroup(a) >= k, p.largestGroup(b) >= k
	return fa && !fb // equal otherwise: the earlier (lower ID) node stays
}

// largestGroup is the most candidates of a node that share an NVLink group
// (GPUs of unknown group count as one group).
func (p *pass) largestGroup(nc *nodeCands) int {
	best := 0
	cs := p.cands[nc.lo:nc.hi]
	if p.nodes[nc.node].oneGroup {
		return len(cs)
	}
	for i := range cs {
		n := 0
		for j := range cs {
			if p.gpus[cs[j].g].group == p.gpus[cs[i].g].group {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}

// pickInNode appends k of a node's candidates to out: preferred GPUs
// first, then by NVLink group: the smallest group that holds what remains
// (best fit), else the largest group, again until done; lowest index
// first within a group, and the lower group number on ties.
func (p *pass) pickInNode(nc *nodeCands, k int, out []int32) []int32 {
	cs := p.cands[nc.lo:nc.hi]
	taken := p.takenBuf[:0]
	for range cs {
		taken = append(taken, false)
	}
	for i, c := range cs {
		if c.pref && k > 0 {
			out, taken[i], k = append(out, c.g), true, k-1
		}
	}
	for k > 0 {
		bestGroup, bestN := 0, -1
		for i, c := range cs {
			if taken[i] {
				continue
			}
			grp, n := p.gpus[c.g].group, 0
			for j, d := range cs {
				if !taken[j] && p.gpus[d.g].group == grp {
					n++
				}
			}
			if bestN < 0 || groupBetter(n, grp, bestN, bestGroup, k) {
				bestGroup, bestN = grp, n
			}
		}
		for i, c := range cs {
			if !taken[i] && k > 0 && p.gpus[c.g].group == bestGroup {
				out, taken[i], k = append(out, c.g), true, k-1
			}
		}
	}
	p.takenBuf = taken
	return out
}

// groupBetter orders NVLink groups of n free candidates for r more GPUs.
func groupBetter(n, grp, bestN, bestGrp, r int) bool {
	fits, bestFits := n >= r, bestN >= r
	switch {
	case fits != bestFits:
		return fits
	case fits && n != bestN:
		return n < bestN
	case !fits && n != bestN:
		return n > bestN
	}
	return grp < bestGrp
}
