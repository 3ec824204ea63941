package scheduler

// request is one attempt to place a job now or in the profile.
type request struct {
	job   *Job
	f     *filter
	k     int
	multi bool
	nodes int // > 1: exactly this many nodes with k/nodes GPUs each (shape.go)
	user  int64
	dur   int64 // estimated run time, ns

	avoid          []bool // GPUs it must not take (the head's reservation); nil: none
	extra          []bool // held GPUs to treat as free (preemption victims'); nil: none
	ignoreBookings bool   // place as if no booking existed (to word explanations)
	onlyOwn        bool   // only GPUs pinned to the user's active bookings
}

// newRequest is the plain request of a pending job.
func newRequest(qj *qjob) request {
	j := qj.job
	rq := request{job: j, f: qj.f, k: j.GPUCount, multi: j.AllowMultiNode, user: j.UserID, dur: qj.dur}
	if j.Shaped() {
		rq.multi, rq.nodes = true, j.Nodes
	}
	return rq
}

// shape is what decides whether a request can be placed at all, ignoring
// bookings, reservations and ownership.
type shape struct {
	f     *filter
	k     int
	multi bool
	nodes int
}

// placeNow picks GPUs for a request among the GPUs free now (plus extra),
// matching its filter, off its avoid set, and not kept from its user by
// another user's booking over [now, now+dur); the user's own booked GPUs
// go first. It returns nil when the request cannot be placed.
//
// Free GPUs only decrease during a pass, so a shape that failed ignoring
// bookings keeps failing; such failures are remembered and later requests
// of the same shape fail at once.
func (p *pass) placeNow(rq *request) []int32 {
	sh := shape{rq.f, rq.k, rq.multi, rq.nodes}
	if rq.extra == nil {
		if (rq.multi && rq.k > p.totalFree) || (!rq.multi && rq.k > p.maxFree) || p.noFit[sh] {
			return nil
		}
	}
	p.resetCands()
	for ni := range p.nodes {
		nd := &p.nodes[ni]
		list := nd.free
		if rq.extra != nil {
			list = nd.gpus
		}
		if len(list) == 0 || (!rq.multi && len(list) < rq.k) || len(list) < rq.perNode() {
			continue
		}
		for _, gi := range list {
			if !p.gpus[gi].free && (rq.extra == nil || !rq.extra[gi]) {
				continue
			}
			if !rq.f.ok(p, gi) || (rq.avoid != nil && rq.avoid[gi]) {
				continue
			}
			pinned := p.pins[gi] != nil
			if pinned && !rq.ignoreBookings && p.blockedBy(gi, rq.user, rq.dur) >= 0 {
				continue
			}
			own := pinned && p.ownActive(gi, rq.user)
			if rq.onlyOwn && !own {
				continue
			}
			p.addCand(gi, own)
		}
	}
	gs := p.chooseFor(rq)
	if gs == nil && rq.extra == nil && rq.avoid == nil && rq.ignoreBookings && !rq.onlyOwn {
		p.noFit[sh] = true
	}
	return gs
}

// freeCounts returns how many GPUs matching f are free now on the fullest
// node and in all, ignoring bookings; cached until the next start.
func (p *pass) freeCounts(f *filter) (maxNode, total int) {
	if c, ok := p.counts[f]; ok && c.version == p.version {
		return c.maxNode, c.total
	}
	for ni := range p.nodes {
		n := 0
		for _, gi := range p.nodes[ni].free {
			if f.ok(p, gi) {
				n++
			}
		}
		maxNode, total = max(maxNode, n), total+n
	}
	p.counts[f] = countMemo{p.version, maxNode, total}
	return maxNode, total
}

// countMemo is a cached freeCounts answer.
type countMemo struct {
	version        int
	maxNode, total int
}
