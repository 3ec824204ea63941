package scheduler

import "time"

// decide settles one job, in queue order: held (a dependency, an array's
// %N) → never
// fits → quota → placement now → (behind the head) backfill or strict order → start or explain.
//
// Jobs that never fit and jobs held back by a quota are explained and
// skipped: they never block the jobs behind them. The first job that cannot
// be placed for lack of GPUs becomes the head (see becomeHead). Behind the
// head a job starts only if it fits now and does not touch the head's
// reservation: it is expected to end by the head's reserved start, or it
// avoids the GPUs reserved for the head. With Backfill that holds for any
// job; without it (strict order) only for a job that fits entirely on GPUs
// its user has booked (a hold is taken at once by its owner's next job).
func (p *pass) decide(qj *qjob, o *outcome) {
	j := qj.job
	if p.held(qj, o) {
		return
	}
	if j.IsShare() { // part of a shared GPU: slots no other job competes for (share.go)
		p.decideShare(qj, o)
		return
	}
	if msg := p.neverFits(j, qj.f); msg != "" {
		o.code, o.reason, o.noETA = ReasonNoMatchingGPU, msg, true
		return
	}
	rq := o.req
	// At least its need, less the GPUs of its own bookings free for it.
	pre := p.quotaNeed(j, qj.f) * float64(max(0, rq.k-p.ownFreeBooked(j.UserID))) / float64(max(rq.k, 1))
	if code, msg := p.quotaBlock(j, qj.f, pre); code != "" {
		o.code, o.reason = code, msg
		return
	}
	if p.head == nil {
		if gs := p.placeNow(&rq); gs != nil {
			p.start(qj, o, gs, false)
			return
		}
		p.becomeHead(qj, o, &rq)
		return
	}
	h := p.head
	try := rq
	if rq.dur > h.t {
		try.avoid = h.avoid
	}
	try.onlyOwn = !p.cfg.Backfill
	if gs := p.placeNow(&try); gs != nil {
		p.start(qj, o, gs, true)
		return
	}
	if p.placeNow(&rq) != nil {
		o.waits = true
		if p.cfg.Backfill {
			o.code, o.reason, o.at = ReasonReservedForHead, p.reservedWords(h), p.abs(h.t)
		} else {
			o.code, o.reason = ReasonBehindHigher, p.behindWords(p.waiting)
		}
		p.waiting++
		return
	}
	p.explainBlocked(qj, o, &rq)
}

// start gives a job its GPUs, unless the GPUs it actually takes would break
// its user's or team's quota (then it is explained as held by quota).
func (p *pass) start(qj *qjob, o *outcome, gs []int32, backfilled bool) {
	j := qj.job
	delta := p.quotaDelta(j, gs)
	if code, msg := p.quotaBlock(j, qj.f, delta); code != "" {
		o.code, o.reason = code, msg
		return
	}
	p.take(gs)
	p.commitQuota(j, delta, qj.dur)
	p.startSpans = append(p.startSpans, startSpan{gs, qj.dur})
	if p.prof != nil {
		for _, gi := range gs {
			p.prof.add(gi, span{0, qj.dur, 0})
		}
	}
	ids := make([]int64, len(gs))
	for i, gi := range gs {
		ids[i] = p.gpus[gi].id
	}
	p.starts = append(p.starts, Start{JobID: j.ID, GPUIDs: ids, Backfilled: backfilled})
	o.started = true
	if j.ArrayID != 0 {
		p.arrayRunning[j.ArrayID]++
	}
}

// explainBlocked words why a job cannot be placed now. A job that cannot be
// placed even once every running job and booking has ended (too many
// unusable GPUs) gets no estimate and blocks nobody.
func (p *pass) explainBlocked(qj *qjob, o *outcome, rq *request) {
	if msg := p.unplaceable(qj.job, qj.f); msg != "" {
		o.code, o.reason, o.noETA = ReasonNoCapacity, msg, true
		return
	}
	o.waits = true
	p.waiting++
	o.code, o.reason, o.at = p.whyNoRoom(qj, rq)
}

// head is the first job that waits for GPUs, and its reservation.
type head struct {
	q          *qjob
	t          int64   // reserved start (the shadow time), relative to now
	gpus       []int32 // the GPUs reserved for it at t
	avoid      []bool  // gpus as a set
	preempting bool
	words      string // reservedWords, once
}

// becomeHead makes a job that cannot be placed now the head: it reserves
// the earliest time and GPUs at which it fits in the profile (running jobs'
// estimated ends, bookings, the starts made so far). With Preemption it may
// instead stop lower-priority jobs (see preempt); then its reservation is
// now, on the GPUs it will take once they stop.
func (p *pass) becomeHead(qj *qjob, o *outcome, rq *request) {
	p.explainBlocked(qj, o, rq)
	if o.noETA {
		return
	}
	p.ensureProfile()
	t, gs := p.earliest(rq, 0)
	if gs == nil {
		o.noETA = true
		return
	}
	h := &head{q: qj, t: t, gpus: gs}
	if p.cfg.Preempts() {
		if victims, waits, pgs := p.preempt(qj, rq); pgs != nil {
			h.t, h.gpus, h.preempting = 0, pgs, true
			o.code, o.reason, o.at = ReasonPreempting, p.preemptingWords(qj.job, victims, waits), time.Time{}
		}
	}
	h.avoid = make([]bool, len(p.gpus))
	for _, gi := range h.gpus {
		h.avoid[gi] = true
	}
	o.eta = h.t
	p.head = h
}
