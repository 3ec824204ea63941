package scheduler

import (
	"cmp"
	"slices"
	"strings"
)

// booking is a Booking (or hold) with the GPUs the pass pins it to.
type booking struct {
	b          *Booking
	start, end int64 // relative to now
	active     bool  // start ≤ now < end
	pins       []int32
	ownUsed    int // pinned GPUs held by the owner's running jobs
}

// pinBookings picks, deterministically, the GPUs every booking reserves
// (its window may be now or later). Pins of bookings whose windows overlap
// never share a GPU. The most constrained bookings pick first (named GPUs,
// then fewest eligible GPUs, then start, then ID). A booking takes the GPUs
// that will be ready at its start (free now, held by the owner, or, for a
// future booking, held by a job expected to end before it) — as many as it
// can, and only then prefers one node, best fit, owner-held and soon-free
// GPUs first so that GPUs free now stay open for jobs. A booking that
// cannot get enough ready GPUs also pins the ones expected to free first.
//
// Those preferences follow the jobs running now; booking admission
// (AdmitBookings) pins with none. When the preferences leave GPUs of some
// booking unpinned, the bookings are pinned again as admission pins them,
// and that pinning is kept if it leaves fewer GPUs unpinned: a set of
// bookings admission accepted is pinned in full on the cluster it was
// admitted on, whatever runs.
func (p *pass) pinBookings(s *Snapshot) {
	order := p.bookingOrder(s)
	p.pinInOrder(order, false)
	short := p.unpinned()
	if short == 0 {
		return
	}
	prefBookings, prefPins := p.bookings, p.pins
	p.pinInOrder(order, true)
	if p.unpinned() >= short {
		p.bookings, p.pins = prefBookings, prefPins
	}
}

// bookingOrder lists the bookings of s that claim GPUs at some time from
// now on (each ID once), in the order they pin: named GPUs first, then
// fewest eligible GPUs, then start, then ID.
func (p *pass) bookingOrder(s *Snapshot) []booking {
	seen := map[int64]bool{}
	var order []booking
	for i := range s.Bookings {
		b := &s.Bookings[i]
		bk := booking{b: b, start: p.rel(b.Start), end: p.rel(b.End)}
		if seen[b.ID] || bk.end <= 0 || bk.end <= bk.start || b.GPUCount < 1 {
			continue
		}
		seen[b.ID] = true
		bk.active = bk.start <= 0
		order = append(order, bk)
	}
	p.pins = nil
	eligible := make([]int, len(order))
	for i := range order {
		eligible[i] = len(p.bookingCands(&order[i]))
	}
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(x, y int) int {
		a, b := &order[x], &order[y]
		return cmp.Or(cmp.Compare(unnamed(a), unnamed(b)), cmp.Compare(eligible[x], eligible[y]),
			cmp.Compare(a.start, b.start), cmp.Compare(a.b.ID, b.b.ID))
	})
	out := make([]booking, len(order))
	for i, x := range idx {
		out[i] = order[x]
	}
	return out
}

// pinInOrder pins the bookings of order one after the other into
// p.bookings and p.pins; neutral leaves running jobs out of the choice (as
// admission does).
func (p *pass) pinInOrder(order []booking, neutral bool) {
	p.pins = make([][]int32, len(p.gpus))
	p.bookings = slices.Clone(order)
	for bi := range p.bookings {
		bk := &p.bookings[bi]
		bk.pins = p.pickPins(bk, neutral)
		for _, gi := range bk.pins {
			p.pins[gi] = append(p.pins[gi], int32(bi))
			if h := p.gpus[gi].holder; h >= 0 && p.running[h].job.UserID == bk.b.UserID {
				bk.ownUsed++
			}
		}
	}
}

// unpinned counts the GPUs the bookings asked for and did not get.
func (p *pass) unpinned() int {
	n := 0
	for i := range p.bookings {
		n += p.bookings[i].short()
	}
	return n
}

// unnamed is 0 for a booking of named GPUs, 1 otherwise.
func unnamed(bk *booking) int {
	if len(bk.b.GPUIDs) > 0 {
		return 0
	}
	return 1
}

// bookingCands lists the usable GPUs a booking may pin, in GPU order,
// leaving out GPUs already pinned by a booking whose window overlaps.
func (p *pass) bookingCands(bk *booking) []int32 {
	f := p.filterFor(bk.b.GPUModel, 0, 0)
	if bk.b.GPUShare > 0 { // slots of shared GPUs only
		f = p.filterOf(filterKey{strings.ToLower(bk.b.GPUModel), 0, 0, true})
	}
	var out []int32
	consider := func(gi int32) {
		g := &p.gpus[gi]
		if !g.usable || !f.ok(p, gi) || (bk.b.NodeID != 0 && p.nodes[g.node].id != bk.b.NodeID) {
			return
		}
		if p.pins != nil {
			for _, o := range p.pins[gi] {
				if ob := &p.bookings[o]; ob.start < bk.end && bk.start < ob.end {
					return
				}
			}
		}
		out = append(out, gi)
	}
	if len(bk.b.GPUIDs) > 0 {
		ids := slices.Sorted(slices.Values(bk.b.GPUIDs))
		for _, id := range slices.Compact(ids) {
			if gi, ok := p.byID[id]; ok {
				consider(gi)
			}
		}
		slices.Sort(out)
		return out
	}
	for gi := range p.gpus {
		consider(int32(gi))
	}
	return out
}

// pickPins chooses a booking's GPUs among its candidates (see pinBookings);
// neutral: every candidate is ready and none preferred, as if no job ran.
func (p *pass) pickPins(bk *booking, neutral bool) []int32 {
	cs := p.bookingCands(bk)
	k := bk.b.GPUCount
	if bk.b.GPUShare > 0 {
		return p.pickSlots(bk, cs, neutral)
	}
	if len(bk.b.GPUIDs) > 0 {
		return cs
	}
	var ready, late []int32
	for _, gi := range cs {
		if neutral || p.readyFor(bk, gi) {
			ready = append(ready, gi)
		} else {
			late = append(late, gi)
		}
	}
	if len(ready) >= k {
		p.fillCands(ready, func(gi int32) bool { return !neutral && p.preferredFor(bk, gi) })
		return p.choose(k, true)
	}
	slices.SortStableFunc(late, func(a, b int32) int {
		return cmp.Compare(p.running[p.gpus[a].holder].end, p.running[p.gpus[b].holder].end)
	})
	out := append(ready, late[:min(len(late), k-len(ready))]...)
	slices.Sort(out)
	return out
}

// readyFor reports whether GPU gi can serve the booking at its start: it is
// free now, held by the owner, or (future bookings) held by a job expected
// to end by the booking's start.
func (p *pass) readyFor(bk *booking, gi int32) bool {
	h := p.gpus[gi].holder
	if h < 0 || p.running[h].job.UserID == bk.b.UserID {
		return true
	}
	return !bk.active && p.running[h].end <= bk.start
}

// preferredFor marks the ready GPUs a booking takes first: the owner's own,
// and for a future booking those busy now but expected free by its start.
func (p *pass) preferredFor(bk *booking, gi int32) bool {
	h := p.gpus[gi].holder
	return h >= 0 && (p.running[h].job.UserID == bk.b.UserID || !bk.active)
}

// blockedBy returns the booking that keeps user u off GPU gi during
// [now, now+d), or -1: another user's booking pinned there whose window
// overlaps.
func (p *pass) blockedBy(gi int32, u int64, d int64) int {
	for _, bi := range p.pins[gi] {
		if b := &p.bookings[bi]; b.b.UserID != u && b.start < d && b.end > 0 {
			return int(bi)
		}
	}
	return -1
}

// ownActive reports whether GPU gi is pinned to an active booking of user u.
func (p *pass) ownActive(gi int32, u int64) bool {
	for _, bi := range p.pins[gi] {
		if b := &p.bookings[bi]; b.active && b.b.UserID == u {
			return true
		}
	}
	return false
}
