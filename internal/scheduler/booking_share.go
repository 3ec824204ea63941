package scheduler

import (
	"cmp"
	"slices"
)

// A booking of part of a shared GPU (Booking.GPUShare > 0) pins the slots
// of one shared GPU that hold its fraction, as a share job of that
// fraction would take them (SlotsNeeded): while it is in force nobody
// else's share job takes those slots (placeShare skips them through
// blockedBy), and the owner's share jobs go there first.

// short is how many GPUs the booking asked for and did not get pinned; a
// share booking is short by its one GPU until its slots are pinned.
func (bk *booking) short() int {
	if bk.b.GPUShare > 0 {
		if len(bk.pins) == 0 {
			return 1
		}
		return 0
	}
	return max(0, bk.b.GPUCount-len(bk.pins))
}

// slotGroup is the candidate slots of one shared GPU for a share booking.
type slotGroup struct {
	cands []int32 // in GPU order
	k     int     // how many slots the booking's fraction takes there
	waste int64   // MiB of those k slots beyond the fraction
}

// slotGroups splits a share booking's candidates (in GPU order) by shared
// GPU (node, index), keeping the GPUs that can hold its fraction at all.
func (p *pass) slotGroups(b *Booking, cs []int32) []slotGroup {
	var out []slotGroup
	for i := 0; i < len(cs); {
		g := &p.gpus[cs[i]]
		j := i + 1
		for j < len(cs) && p.gpus[cs[j]].node == g.node && p.gpus[cs[j]].index == g.index {
			j++
		}
		n, slotMiB := g.slots, p.classes[g.class].mem
		k := SlotsNeeded(b.GPUShare, 0, n, slotMiB)
		if k <= j-i && k <= n {
			out = append(out, slotGroup{cands: cs[i:j], k: k,
				waste: int64(k)*slotMiB - int64(b.GPUShare*float64(int64(n)*slotMiB))})
		}
		i = j
	}
	return out
}

// pickSlots chooses a share booking's slots: on one shared GPU, one with
// enough slots ready at its start if any, best fit (least memory beyond
// the fraction, then the GPU with the fewest candidate slots, so that
// shared GPUs fill up one by one), then GPU order; within it the owner's
// and soon-free slots first (as pickPins), then GPU order. Nil when no
// shared GPU can hold it.
func (p *pass) pickSlots(bk *booking, cs []int32, neutral bool) []int32 {
	groups := p.slotGroups(bk.b, cs)
	best, bestReady := -1, false
	for i := range groups {
		g := &groups[i]
		ready := 0
		for _, gi := range g.cands {
			if neutral || p.readyFor(bk, gi) {
				ready++
			}
		}
		ok := ready >= g.k
		if best >= 0 {
			b := &groups[best]
			if c := cmp.Or(-cmp.Compare(btoi(ok), btoi(bestReady)), cmp.Compare(g.waste, b.waste),
				cmp.Compare(len(g.cands), len(b.cands))); c >= 0 {
				continue
			}
		}
		best, bestReady = i, ok
	}
	if best < 0 {
		return nil
	}
	g := &groups[best]
	order := slices.Clone(g.cands)
	rank := func(gi int32) int {
		switch {
		case neutral:
			return 0
		case !p.readyFor(bk, gi):
			return 3
		case p.preferredFor(bk, gi):
			return 0
		case p.gpus[gi].holder < 0:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		ra, rb := rank(a), rank(b)
		if c := cmp.Compare(ra, rb); c != 0 || ra != 3 {
			return c
		}
		return cmp.Compare(p.running[p.gpus[a].holder].end, p.running[p.gpus[b].holder].end)
	})
	out := order[:g.k]
	slices.Sort(out)
	return out
}

// slotsCanHold reports whether some shared GPU of pool (a share booking's
// candidates) has enough slots for its fraction.
func (p *pass) slotsCanHold(b *Booking, pool []int32) bool {
	return len(p.slotGroups(b, pool)) > 0
}

// slotsWanted is how many devices booking b needs: its GPUCount, or for a
// share booking the fewest slots its fraction takes on a GPU of pool.
func (p *pass) slotsWanted(b *Booking, pool []int32) int {
	if b.GPUShare <= 0 {
		return b.GPUCount
	}
	k := 0
	for _, g := range p.slotGroups(b, pool) {
		if k == 0 || g.k < k {
			k = g.k
		}
	}
	return max(k, 1)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
