package scheduler

// etaLimit is how many explained jobs, from position 1, get an estimated
// start; the ones beyond get none (zero), to bound the pass's time.
const etaLimit = 100

// earliest finds the earliest relative time ≥ lo at which the request fits
// in the profile, and the GPUs it would take then (chosen by the same rules
// as a placement now); forever and nil when it never fits. A multi-node
// request spans nodes only if that starts it earlier than one node would.
func (p *pass) earliest(rq *request, lo int64) (int64, []int32) {
	if rq.nodes > 1 {
		return p.earliestShaped(rq, lo)
	}
	pr := p.prof
	best := forever
	evs := p.evBuf[:0]
	for ni := range p.nodes {
		if best == lo {
			break // nothing starts earlier than lo
		}
		n := 0
		for _, gi := range p.nodes[ni].gpus {
			if p.gpus[gi].usable && rq.f.ok(p, gi) {
				n++
			}
		}
		if n < rq.k {
			continue
		}
		evs = evs[:0]
		for _, gi := range p.nodes[ni].gpus {
			if p.gpus[gi].usable && rq.f.ok(p, gi) {
				evs, p.winBuf = pr.events(gi, rq, lo, evs, p.winBuf)
			}
		}
		best = min(best, sweep(evs, rq.k, best))
	}
	multi := false
	if rq.multi && best > lo {
		evs = evs[:0]
		for gi := range p.gpus {
			if p.gpus[gi].usable && rq.f.ok(p, int32(gi)) {
				evs, p.winBuf = pr.events(int32(gi), rq, lo, evs, p.winBuf)
			}
		}
		if t := sweep(evs, rq.k, best); t < best {
			best, multi = t, true
		}
	}
	p.evBuf = evs
	if best == forever {
		return forever, nil
	}
	p.resetCands()
	for gi := range p.gpus {
		g := int32(gi)
		if p.gpus[gi].usable && rq.f.ok(p, g) && pr.freeFor(g, rq.user, best, rq.dur) {
			p.addCand(g, p.ownAt(g, rq.user, best))
		}
	}
	return best, p.choose(rq.k, multi)
}

// ownAt reports whether GPU gi is pinned to a booking of user u at t.
func (p *pass) ownAt(gi int32, u, t int64) bool {
	for _, bi := range p.pins[gi] {
		if b := &p.bookings[bi]; b.b.UserID == u && b.start <= t && t < b.end {
			return true
		}
	}
	return false
}

// estimate gives waiting jobs their estimated starts, conservative-backfill
// style: in queue order each job takes the earliest time and GPUs at which
// it fits in the profile (running jobs' estimated ends, bookings, this
// pass's starts, the head's reservation, and the reservations of the jobs
// before it), and reserves them. A job held by quota cannot start before
// its user's and team's running jobs free enough of the cap. Without
// Backfill no job is expected to start before a job ahead of it that waits
// for GPUs (share jobs excepted: slots compete only with slots; they take
// the first slots free on one shared GPU, earliestShare). Jobs that never fit or cannot be placed on the usable GPUs get
// none, and so do jobs beyond position etaLimit.
func (p *pass) estimate(q []*qjob) {
	if len(p.starts) == len(q) {
		return
	}
	p.ensureProfile()
	h := p.head
	if h != nil {
		if h.preempting {
			for _, pe := range p.preempts {
				for i := range p.running {
					if p.running[i].job.ID == pe.JobID {
						for _, gi := range p.running[i].gpus {
							p.prof.endNow(gi)
						}
					}
				}
			}
		}
		for _, gi := range h.gpus {
			p.prof.add(gi, span{h.t, satAdd(h.t, h.q.dur), 0})
		}
	}
	for _, sh := range p.shareHolds { // a preempting share job's slots
		for _, gi := range sh.gpus {
			p.prof.endNow(gi)
			p.prof.add(gi, span{0, sh.dur, 0})
		}
	}
	floor, pos := int64(0), 0
	for i, qj := range q {
		o := &p.outs[i]
		if o.started {
			continue
		}
		pos++
		if o.noETA || pos > etaLimit || (h != nil && qj == h.q) {
			if h != nil && qj == h.q {
				floor = max(floor, h.t)
			}
			continue
		}
		lo := int64(0)
		if o.code == ReasonUserQuota || o.code == ReasonTeamQuota {
			if lo = p.quotaReady(qj.job, qj.f); lo == forever {
				continue
			}
		}
		share := qj.job.IsShare() // slots: it never waits behind the head, nor holds anyone up
		if !p.cfg.Backfill && o.waits && !share {
			lo = max(lo, floor)
		}
		var t int64
		var gs []int32
		if share {
			t, gs = p.earliestShare(qj, &o.req, lo) // share_wait.go
		} else {
			t, gs = p.earliest(&o.req, lo)
		}
		if gs == nil {
			continue
		}
		o.eta = t
		for _, gi := range gs {
			p.prof.add(gi, span{t, satAdd(t, qj.dur), 0})
		}
		if o.waits && !share {
			floor = max(floor, t)
		}
	}
}

// endNow drops the running job's span from a GPU whose job is being
// preempted: the GPU is expected free now.
func (pr *profile) endNow(gi int32) {
	ss := pr.spans[gi][:0]
	for _, sp := range pr.spans[gi] {
		if sp.owner != 0 || sp.s > 0 {
			ss = append(ss, sp)
		}
	}
	pr.spans[gi] = ss
}
