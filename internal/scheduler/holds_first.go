package scheduler

import "slices"

// startOnHolds starts, before the queue is walked, every pending job (in
// queue order) that fits entirely on free GPUs pinned to its owner's active
// holds: a hold is the client agent's promise that the owner's next
// matching job starts at once, so such a job goes ahead of the queue and
// the head's reservation is computed after it (a hold's GPUs were kept from
// everyone else anyway; its owner's job may then run past the hold's end).
// These starts are not Backfilled.
func (p *pass) startOnHolds(q []*qjob) {
	for i, qj := range q {
		o := &p.outs[i]
		rq := o.req
		if qj.job.IsShare() || p.ownFreeHeld(rq.user) < rq.k || p.held(qj, o) {
			continue
		}
		try := rq
		try.onlyOwn = true
		gs := p.placeNow(&try)
		if gs == nil || !p.allHeld(gs, rq.user) {
			continue
		}
		p.start(qj, o, gs, false)
	}
}

// ownFreeHeld counts the free GPUs pinned to user u's active holds.
func (p *pass) ownFreeHeld(u int64) int {
	n := 0
	for i := range p.bookings {
		if bk := &p.bookings[i]; bk.active && bk.b.Hold && bk.b.UserID == u {
			for _, gi := range bk.pins {
				if p.gpus[gi].free {
					n++
				}
			}
		}
	}
	return n
}

// allHeld reports whether every GPU of gs is pinned to an active hold of u.
func (p *pass) allHeld(gs []int32, u int64) bool {
	for _, gi := range gs {
		held := false
		for _, bi := range p.pins[gi] {
			if b := &p.bookings[bi]; b.active && b.b.Hold && b.b.UserID == u {
				held = true
			}
		}
		if !held {
			return false
		}
	}
	return true
}

// sortStarts puts the starts back in queue order (holds went first).
func (p *pass) sortStarts(q []*qjob) {
	pos := make(map[int64]int, len(q))
	for i, qj := range q {
		pos[qj.job.ID] = i
	}
	slices.SortStableFunc(p.starts, func(a, b Start) int { return pos[a.JobID] - pos[b.JobID] })
}
