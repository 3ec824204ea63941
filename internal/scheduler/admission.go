package scheduler

import (
	"cmp"
	"slices"
	"time"
)

// Reasons an asked booking is refused (Refusal.Code).
const (
	RefusedNoSuchGPU = "no_such_gpu" // a named GPU is not in the cluster
	RefusedTooFew    = "too_few"     // the cluster has fewer GPUs of its kind than it asks for
	RefusedClash     = "clash"       // the bookings of its window leave it too few GPUs
)

// Refusal says why one asked booking cannot be honoured.
type Refusal struct {
	BookingID int64
	Code      string // one of the Refused* codes
	// Eligible is how many GPUs of the cluster the booking may use at all
	// (of its model, on its node, or named and present).
	Eligible int
	// Missing are its named GPUs the cluster does not have (RefusedNoSuchGPU).
	Missing []int64
	// At is when the clash shows (RefusedClash): the first moment of its
	// window at which it and the bookings then in force that compete with
	// it for GPUs ask for more than their GPUs number; its start when no
	// single moment is short and the clash comes from keeping the same GPUs
	// over the whole window.
	At time.Time
	// Rivals are the bookings in force at At that compete with it for
	// GPUs, directly or through another, by start then ID (RefusedClash).
	Rivals []int64
}

// Admission is the verdict on bookings asked for.
type Admission struct {
	// Refused lists the asked bookings refused, in the order asked.
	Refused []Refusal
}

// AdmitBookings decides, one after the other, whether each booking of ask
// (not in s.Bookings, with IDs of its own) can be honoured beside
// s.Bookings and the asked bookings admitted before it. It uses the
// pinning every scheduling pass makes (pinBookings): a booking is admitted
// when, pinned together with the others, it gets all its GPUs and every
// booking that got all its GPUs without it still does. So a set of
// bookings admitted one by one is one the pass pins in full, and a booking
// the pass would pin in full beside fully pinned ones is admitted.
//
// The calendar is promised on the cluster as built: every GPU and node of
// s counts as usable and no job as running (a GPU that is down or busy now
// is expected back), so only s.Now, s.Nodes, s.GPUs and s.Bookings matter.
// Bookings that ended by s.Now are left out, as the pass leaves them out.
func AdmitBookings(s Snapshot, ask []Booking) Admission {
	whole := Snapshot{Now: s.Now, Nodes: slices.Clone(s.Nodes), GPUs: slices.Clone(s.GPUs)}
	for i := range whole.Nodes {
		whole.Nodes[i].Up, whole.Nodes[i].Drained = true, false
	}
	for i := range whole.GPUs {
		g := &whole.GPUs[i]
		g.Healthy, g.Drained, g.Foreign = true, false, false
	}
	p := indexPass(&whole, DefaultConfig())
	admitted := slices.Clone(s.Bookings)
	var out Admission
	for i := range ask {
		if r, ok := p.admit(admitted, &ask[i]); !ok {
			out.Refused = append(out.Refused, r)
			continue
		}
		admitted = append(admitted, ask[i])
	}
	return out
}

// admit decides one asked booking b beside the bookings of base.
func (p *pass) admit(base []Booking, b *Booking) (Refusal, bool) {
	r := Refusal{BookingID: b.ID}
	if !b.End.After(b.Start) || !b.End.After(p.now) {
		return r, true // claims nothing from now on: the pass leaves it out too
	}
	pool := p.pool(b)
	r.Eligible = len(pool)
	for _, id := range slices.Compact(slices.Sorted(slices.Values(b.GPUIDs))) {
		if _, ok := p.byID[id]; !ok {
			r.Missing = append(r.Missing, id)
		}
	}
	switch {
	case len(r.Missing) > 0:
		r.Code = RefusedNoSuchGPU
		return r, false
	case b.GPUShare > 0 && !p.slotsCanHold(b, pool):
		r.Code = RefusedTooFew
		return r, false
	case b.GPUShare <= 0 && (len(pool) < b.GPUCount || b.GPUCount < 1):
		r.Code = RefusedTooFew
		return r, false
	}
	group := overlapping(base, b)
	full := p.fullyPinned(group)
	with := p.fullyPinned(append(group, *b))
	ok := with[b.ID]
	for id := range full {
		ok = ok && with[id]
	}
	if ok {
		return r, true
	}
	r.Code = RefusedClash
	r.At, r.Rivals = p.clash(group, b, pool)
	return r, false
}

// fullyPinned pins bs as a pass would (pinBookings, with no job running)
// and reports which of them got all their GPUs.
func (p *pass) fullyPinned(bs []Booking) map[int64]bool {
	s := Snapshot{Now: p.now, Bookings: bs}
	p.pinInOrder(p.bookingOrder(&s), true)
	out := make(map[int64]bool, len(p.bookings))
	for i := range p.bookings {
		bk := &p.bookings[i]
		out[bk.b.ID] = bk.short() == 0
	}
	return out
}

// overlapping returns the bookings of base that b's pins can depend on:
// those linked to b's window by a chain of overlapping windows (the
// merged interval of windows that holds b's). Pins of bookings outside it
// never meet b's, whatever either picks.
func overlapping(base []Booking, b *Booking) []Booking {
	type interval struct{ lo, hi time.Time }
	ws := make([]interval, 0, len(base)+1)
	for i := range base {
		ws = append(ws, interval{base[i].Start, base[i].End})
	}
	ws = append(ws, interval{b.Start, b.End})
	slices.SortFunc(ws, func(x, y interval) int { return x.lo.Compare(y.lo) })
	cur := ws[0]
	for _, w := range ws[1:] {
		if w.lo.Before(cur.hi) {
			cur.hi = maxTime(cur.hi, w.hi)
			continue
		}
		if !b.Start.Before(cur.lo) && !cur.hi.Before(b.End) {
			break // the merged interval that holds b's window
		}
		cur = w
	}
	return slices.DeleteFunc(slices.Clone(base), func(o Booking) bool { return !o.Start.Before(cur.hi) || !cur.lo.Before(o.End) })
}

// clash finds when and with whom b clashes (see Refusal.At and Rivals).
func (p *pass) clash(group []Booking, b *Booking, pool []int32) (time.Time, []int64) {
	moments := []time.Time{maxTime(b.Start, p.now)}
	for i := range group {
		if t := group[i].Start; t.After(moments[0]) && t.Before(b.End) {
			moments = append(moments, t)
		}
	}
	slices.SortFunc(moments, func(x, y time.Time) int { return x.Compare(y) })
	for _, t := range moments {
		reach := make(map[int32]bool, len(pool))
		for _, gi := range pool {
			reach[gi] = true
		}
		need := p.slotsWanted(b, pool)
		var rivals []*Booking
		taken := make([]bool, len(group))
		for grew := true; grew; {
			grew = false
			for i := range group {
				o := &group[i]
				if taken[i] || o.Start.After(t) || !o.End.After(t) {
					continue
				}
				op := p.pool(o)
				if !slices.ContainsFunc(op, func(gi int32) bool { return reach[gi] }) {
					continue
				}
				taken[i], grew = true, true
				need += p.slotsWanted(o, op)
				rivals = append(rivals, o)
				for _, gi := range op {
					reach[gi] = true
				}
			}
		}
		if need > len(reach) {
			return t, rivalIDs(rivals)
		}
	}
	// No single moment is short: b cannot keep the same GPUs over its
	// window. Its rivals are the bookings of its window that may take its GPUs.
	var rivals []*Booking
	for i := range group {
		o := &group[i]
		if o.Start.Before(b.End) && b.Start.Before(o.End) && slices.ContainsFunc(p.pool(o), func(gi int32) bool { return slices.Contains(pool, gi) }) {
			rivals = append(rivals, o)
		}
	}
	return moments[0], rivalIDs(rivals)
}

// rivalIDs lists the bookings' IDs by start, then ID.
func rivalIDs(bs []*Booking) []int64 {
	slices.SortFunc(bs, func(x, y *Booking) int { return cmp.Or(x.Start.Compare(y.Start), cmp.Compare(x.ID, y.ID)) })
	out := make([]int64, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}

// pool lists the GPUs booking b may use at all, ignoring other bookings.
func (p *pass) pool(b *Booking) []int32 {
	saved := p.pins
	p.pins = nil
	defer func() { p.pins = saved }()
	return p.bookingCands(&booking{b: b})
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
