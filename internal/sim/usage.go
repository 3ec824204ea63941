package sim

import (
	"math"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// usageBook keeps each user's decayed GPU usage, as fair share reads it
// from Principal.Usage: the GPU time of every run, past and current,
// decayed with the policy's half-life, measured as the control plane
// measures it (scheduler.GPUTime).
//
// Summing GPUTime over all past runs at every pass would cost O(runs) per
// pass, so finished runs are folded into one number per user: a run's
// decayed usage at its end, then halved every half-life after that, which
// is what GPUTime gives for any later now (usage decays as
// 2^(−age/half-life)). The event loop closes runs in order of end time.
type usageBook struct {
	halfLife time.Duration
	closed   map[int64]decayed // user → folded usage of finished allocations
}

// decayed is a usage value as of a time.
type decayed struct {
	value float64
	at    time.Time
}

// newUsageBook is an empty book with the given half-life.
func newUsageBook(halfLife time.Duration) *usageBook {
	return &usageBook{halfLife: halfLife, closed: map[int64]decayed{}}
}

// decay is the factor usage shrinks by over d.
func (b *usageBook) decay(d time.Duration) float64 {
	if d <= 0 {
		return 1
	}
	return math.Exp2(-d.Seconds() / b.halfLife.Seconds())
}

// close folds a finished run (h.End set) into its user's usage.
func (b *usageBook) close(h scheduler.Held) {
	user, end := h.UserID, h.End
	d := b.closed[user]
	v := scheduler.GPUTime(h, scheduler.UsageWindow{Now: end, HalfLife: b.halfLife})
	if d.at.IsZero() {
		b.closed[user] = decayed{value: v, at: end}
		return
	}
	if end.Before(d.at) { // out of order: bring v forward to d.at instead
		b.closed[user] = decayed{value: d.value + v*b.decay(d.at.Sub(end)), at: d.at}
		return
	}
	b.closed[user] = decayed{value: d.value*b.decay(end.Sub(d.at)) + v, at: end}
}

// usage is user's decayed usage at now: the finished runs folded so far
// plus the running ones given (each still held: End zero).
func (b *usageBook) usage(user int64, now time.Time, running []scheduler.Held) float64 {
	u := 0.0
	if d, ok := b.closed[user]; ok {
		u = d.value * b.decay(now.Sub(d.at))
	}
	w := scheduler.UsageWindow{Now: now, HalfLife: b.halfLife}
	for _, h := range running {
		u += scheduler.GPUTime(h, w)
	}
	return u
}
