package sim

import (
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// holdBook replays the agent's holds: a hold starts at its signal and
// reserves its GPUs for its user (a scheduler.Booking with Hold set) until
// its TTL passes or a job of its user starts (consumed), as the control
// plane does (models.ConsumeHolds).
type holdBook struct {
	sig   *Signals
	ends  []time.Duration // per signal: when the hold stopped reserving
	used  []bool          // per signal: a job of its user consumed it
	first int             // signals before this one have all ended
	now   time.Duration   // the replay's current time
}

// HoldResult is what the holds of one replay did.
type HoldResult struct {
	Holds, Consumed, Expired int
	// IdleGPUSeconds is the GPU-time held and not used: GPUs × (consumed or
	// expired − created), over all holds.
	IdleGPUSeconds float64
}

func newHoldBook(sig *Signals) *holdBook {
	if sig == nil {
		return nil
	}
	h := &holdBook{sig: sig, ends: make([]time.Duration, len(sig.List)), used: make([]bool, len(sig.List))}
	for i, s := range sig.List {
		h.ends[i] = s.At + sig.TTL
	}
	return h
}

// active returns the holds reserving GPUs at t, for the snapshot.
func (h *holdBook) active(t time.Duration, userName func(int64) string) []scheduler.Booking {
	if h == nil {
		return nil
	}
	for h.first < len(h.ends) && h.ends[h.first] <= t && h.sig.List[h.first].At <= t {
		h.first++
	}
	var out []scheduler.Booking
	for i := h.first; i < len(h.sig.List) && h.sig.List[i].At <= t; i++ {
		if s := h.sig.List[i]; !h.used[i] && h.ends[i] > t {
			out = append(out, scheduler.Booking{ID: int64(i + 1), UserID: s.User, UserName: userName(s.User), Hold: true,
				GPUCount: s.GPUs, Start: at(s.At), End: at(h.ends[i])})
		}
	}
	return out
}

// advance moves the book to the replay's time t.
func (h *holdBook) advance(t time.Duration) {
	if h != nil {
		h.now = t
	}
}

// nextEnd is the earliest expiry after now of a hold not used yet (unused
// holds end in signal order: same TTL).
func (h *holdBook) nextEnd() (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	for i := h.first; i < len(h.ends); i++ {
		if !h.used[i] && h.ends[i] > h.now {
			return h.ends[i], true
		}
	}
	return 0, false
}

// consume ends the oldest active holds of job's user that cover its GPUs,
// when the job starts at t.
func (h *holdBook) consume(j Job, t time.Duration) {
	if h == nil {
		return
	}
	covered := 0
	for i := h.first; i < len(h.sig.List) && h.sig.List[i].At <= t && covered < j.GPUs; i++ {
		if s := h.sig.List[i]; s.User == j.User && !h.used[i] && h.ends[i] > t {
			h.used[i], h.ends[i] = true, t
			covered += s.GPUs
		}
	}
}

// result sums the holds up; holds still open at end are cut there.
func (h *holdBook) result(end time.Duration) *HoldResult {
	if h == nil {
		return nil
	}
	r := &HoldResult{Holds: len(h.sig.List)}
	for i, s := range h.sig.List {
		stop := min(h.ends[i], max(end, s.At))
		if h.used[i] {
			r.Consumed++
		} else {
			r.Expired++
		}
		r.IdleGPUSeconds += float64(s.GPUs) * (stop - s.At).Seconds()
	}
	return r
}

// userNameOf names user u as the snapshot's principals do.
func userNameOf(u int64) string { return fmt.Sprintf("user%d", u) }
