package scheduler

import (
	"cmp"
	"fmt"
	"slices"
)

// Shaped reports whether the job asks for a shape: exactly Nodes distinct
// nodes with GPUsPerNode GPUs on each.
func (j *Job) Shaped() bool { return j.Nodes > 1 }

// GPUsPerNode is a shaped job's GPUs on each node; GPUCount when unshaped.
func (j *Job) GPUsPerNode() int {
	if !j.Shaped() {
		return j.GPUCount
	}
	return j.GPUCount / j.Nodes
}

// perNode is the GPUs a shaped request needs on each of its nodes; 0 when
// unshaped.
func (rq *request) perNode() int {
	if rq.nodes <= 1 {
		return 0
	}
	return rq.k / rq.nodes
}

// chooseFor picks the request's GPUs among the current candidates: a
// shaped request's by chooseShaped, any other's by choose.
func (p *pass) chooseFor(rq *request) []int32 {
	if rq.nodes > 1 {
		return p.chooseShaped(rq.nodes, rq.perNode())
	}
	return p.choose(rq.k, rq.multi)
}

// chooseShaped picks exactly per candidates on each of n distinct nodes,
// or nil when fewer than n nodes hold per. Nodes are taken as choose
// prefers one node: most preferred GPUs, then best fit (fewest candidates,
// so fuller nodes stay whole), then the lowest node ID; within a node see
// pickInNode. The result is in GPU order.
func (p *pass) chooseShaped(n, per int) []int32 {
	if per < 1 {
		return nil
	}
	order := make([]int, 0, len(p.ncs))
	for i := range p.ncs {
		if int(p.ncs[i].hi-p.ncs[i].lo) >= per {
			order = append(order, i)
		}
	}
	if len(order) < n {
		return nil
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := &p.ncs[a], &p.ncs[b]
		return cmp.Or(-cmp.Compare(min(x.pref, per), min(y.pref, per)), cmp.Compare(x.hi-x.lo, y.hi-y.lo))
	})
	out := make([]int32, 0, n*per)
	for _, i := range order[:n] {
		out = p.pickInNode(&p.ncs[i], per, out)
	}
	slices.Sort(out)
	return out
}

// nodesHolding counts the nodes with at least per GPUs matching f: present
// ones (usable false) or usable ones (usable true).
func (p *pass) nodesHolding(f *filter, per int, usable bool) int {
	c := 0
	for ni := range p.nodes {
		if f.key.node != 0 && p.nodes[ni].id != f.key.node {
			continue
		}
		n := 0
		for _, gi := range p.nodes[ni].gpus {
			if f.match[p.gpus[gi].class] && (!usable || p.gpus[gi].usable) {
				n++
			}
		}
		if n >= per {
			c++
		}
	}
	return c
}

// shapeWords says what a shaped job asks for: "2 nodes with 4 free GPUs
// each".
func (p *pass) shapeWords(j *Job) string {
	one := *j
	one.GPUCount = j.GPUsPerNode()
	return fmt.Sprintf("%d nodes with %s each", j.Nodes, p.gpuWords(&one))
}

// shapeNeverFits explains a shaped job no placement can ever satisfy; ""
// when it could fit some day.
func (p *pass) shapeNeverFits(j *Job, f *filter) string {
	if j.GPUCount%j.Nodes != 0 {
		return fmt.Sprintf("asks for %d GPUs on %d nodes; the GPUs must divide evenly among the nodes", j.GPUCount, j.Nodes)
	}
	if c := p.nodesHolding(f, j.GPUsPerNode(), false); c < j.Nodes {
		return fmt.Sprintf("needs %s; the cluster has %d such node%s", p.shapeWords(j), c, plural(c))
	}
	return ""
}

// shapeUnplaceable explains a shaped job that fits the cluster on paper
// but not its usable GPUs; "" when it can be placed some day.
func (p *pass) shapeUnplaceable(j *Job, f *filter) string {
	if c := p.nodesHolding(f, j.GPUsPerNode(), true); c < j.Nodes {
		return fmt.Sprintf("needs %s; only %d such node%s usable (the others' GPUs are unhealthy, drained, foreign or down)",
			p.shapeWords(j), c, plural(c))
	}
	return ""
}

// shapedWaitWords explains a shaped job waiting for GPUs: how many nodes
// have enough free now.
func (p *pass) shapedWaitWords(j *Job, f *filter) (code, reason string) {
	per, c := j.GPUsPerNode(), 0
	for ni := range p.nodes {
		n := 0
		for _, gi := range p.nodes[ni].free {
			if f.ok(p, gi) {
				n++
			}
		}
		if n >= per {
			c++
		}
	}
	return ReasonNoCapacity, fmt.Sprintf("needs %d nodes with %d free %s each; %d node%s %s that many free",
		j.Nodes, per, gpuNoun(j, per), c, plural(c), hasHave(c))
}

// gpuNoun names what a job takes, for n of them.
func gpuNoun(j *Job, n int) string {
	s := "GPU"
	if IsMIGProfile(j.GPUModel) {
		s = "MIG device"
	}
	if n != 1 {
		s += "s"
	}
	return s
}

// hasHave is "has" for one, "have" otherwise.
func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// earliestShaped is earliest for a shaped request: the first time ≥ lo at
// which n distinct nodes each hold per GPUs for the run, and the GPUs it
// would take then. Each round finds every node's own earliest time from
// the current bound; the n-th smallest is a new bound (no earlier time has
// n nodes ready), and the search ends when n nodes are ready at it.
func (p *pass) earliestShaped(rq *request, lo int64) (int64, []int32) {
	pr, n, per := p.prof, rq.nodes, rq.perNode()
	t := lo
	var ts []int64
	for round := 0; round < 4*len(p.nodes)+4 && t != forever; round++ {
		ts = ts[:0]
		for ni := range p.nodes {
			evs := p.evBuf[:0]
			for _, gi := range p.nodes[ni].gpus {
				if p.gpus[gi].usable && rq.f.ok(p, gi) {
					evs, p.winBuf = pr.events(gi, rq, t, evs, p.winBuf)
				}
			}
			p.evBuf = evs
			if len(evs) > 0 {
				ts = append(ts, sweep(evs, per, forever))
			}
		}
		if len(ts) < n {
			return forever, nil
		}
		slices.Sort(ts)
		next := ts[n-1]
		if next == t {
			break
		}
		t = next
	}
	if t == forever {
		return forever, nil
	}
	p.resetCands()
	for gi := range p.gpus {
		g := int32(gi)
		if p.gpus[gi].usable && rq.f.ok(p, g) && pr.freeFor(g, rq.user, t, rq.dur) {
			p.addCand(g, p.ownAt(g, rq.user, t))
		}
	}
	gs := p.chooseShaped(n, per)
	if gs == nil {
		return forever, nil
	}
	return t, gs
}
