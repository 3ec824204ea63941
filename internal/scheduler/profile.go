package scheduler

import (
	"cmp"
	"slices"
)

// span is a time a GPU is taken, relative to now: by a running job or a
// start of this pass (owner 0: nobody else may use it), by a waiting job's
// reservation (owner 0), or by a booking (owner: its user, whose jobs may
// use it).
type span struct {
	s, e  int64
	owner int64
}

// profile is the availability of every usable GPU over time: running jobs
// until their estimated ends (an overrun job is assumed to end now),
// bookings over their windows, and what the pass adds: starts and
// reservations. GPUs that are not usable now are assumed to stay so.
type profile struct {
	spans [][]span // per GPU, sorted by start
}

// buildProfile makes the profile of running jobs and bookings; starts made
// so far are added by the caller.
func (p *pass) buildProfile() *profile {
	pr := &profile{spans: make([][]span, len(p.gpus))}
	backing := make([]span, 4*len(p.gpus))
	for gi := range p.gpus {
		pr.spans[gi] = backing[4*gi : 4*gi : 4*gi+4]
	}
	for _, r := range p.running {
		for _, gi := range r.gpus {
			pr.add(gi, span{0, r.end, 0})
		}
	}
	for i := range p.bookings {
		bk := &p.bookings[i]
		for _, gi := range bk.pins {
			pr.add(gi, span{bk.start, bk.end, bk.b.UserID})
		}
	}
	return pr
}

// add records a span on a GPU, keeping the GPU's spans sorted.
func (pr *profile) add(gi int32, sp span) {
	if sp.e <= sp.s {
		return
	}
	ss := append(pr.spans[gi], sp)
	i := len(ss) - 1
	for ; i > 0 && ss[i-1].s > sp.s; i-- {
		ss[i] = ss[i-1]
	}
	ss[i] = sp
	pr.spans[gi] = ss
}

// win is a closed range of relative start times [a, b]; b may be forever.
type win struct{ a, b int64 }

// windows appends to buf the start times ≥ lo at which user u could run
// on GPU gi for d without overlapping a span that keeps u off it.
func (pr *profile) windows(gi int32, u, d, lo int64, buf []win) []win {
	cur := lo
	for _, sp := range pr.spans[gi] {
		if (sp.owner != 0 && sp.owner == u) || sp.e <= cur {
			continue
		}
		if sp.s > cur && sp.s-cur >= d {
			buf = append(buf, win{cur, sp.s - d})
		}
		cur = max(cur, sp.e)
	}
	return append(buf, win{cur, forever})
}

// freeFor reports whether user u could run on GPU gi during [t, t+d).
func (pr *profile) freeFor(gi int32, u, t, d int64) bool {
	for _, sp := range pr.spans[gi] {
		if sp.s >= satAdd(t, d) {
			break
		}
		if sp.e > t && (sp.owner == 0 || sp.owner != u) {
			return false
		}
	}
	return true
}

// satAdd adds relative times and durations (d ≥ 0), saturating at forever,
// so that absurd inputs (a booking to the year 9999) cannot wrap around.
func satAdd(t, d int64) int64 {
	if t > forever-d {
		return forever
	}
	return t + d
}

// event is a step of the sweep: at t, delta more GPUs can start.
type event struct {
	t     int64
	delta int
}

// sweep returns the first time at which k of the GPUs' windows overlap,
// or forever; it stops at limit.
func sweep(evs []event, k int, limit int64) int64 {
	slices.SortFunc(evs, func(x, y event) int { return cmp.Compare(x.t, y.t) })
	n := 0
	for i := 0; i < len(evs); {
		t := evs[i].t
		if t >= limit {
			return forever
		}
		for ; i < len(evs) && evs[i].t == t; i++ {
			n += evs[i].delta
		}
		if n >= k {
			return t
		}
	}
	return forever
}

// events appends the sweep events of one GPU's windows.
func (pr *profile) events(gi int32, rq *request, lo int64, evs []event, wb []win) ([]event, []win) {
	wb = pr.windows(gi, rq.user, rq.dur, lo, wb[:0])
	for _, w := range wb {
		evs = append(evs, event{w.a, 1})
		if w.b != forever {
			evs = append(evs, event{w.b + 1, -1})
		}
	}
	return evs, wb
}
