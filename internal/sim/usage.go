package sim

import (
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"

	"math"
	"time"
)

// usageBook keeps each user's decayed GPU usage, as fair share reads it
// from Principal.Usage: the GPU-seconds of every allocation, past and
// current, decayed with the policy's half-life (scheduler.DecayedUsage).
//
// Summing DecayedUsage over all past allocations at every pass would cost
// O(allocations) per pass, so finished allocations are folded into one
// number per user: an allocation's decayed usage at end, then halved every
// half-life after that, which is what DecayedUsage gives for any later now
// (usage decays as 2^(−age/half-life)). The event loop closes allocations
// in order of end time.
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

// close folds a finished allocation of gpus GPUs over [start, end) into
// user's usage.
func (b *usageBook) close(user int64, gpus int, start, end time.Time) {
	d := b.closed[user]
	v := scheduler.DecayedUsage(gpus, start, end, end, b.halfLife)
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

// usage is user's decayed usage at now: the finished allocations folded
// so far plus the running ones given (GPU count and start of each).
func (b *usageBook) usage(user int64, now time.Time, running []allocation) float64 {
	u := 0.0
	if d, ok := b.closed[user]; ok {
		u = d.value * b.decay(now.Sub(d.at))
	}
	for _, a := range running {
		u += scheduler.DecayedUsage(a.gpus, a.start, now, now, b.halfLife)
	}
	return u
}

// allocation is a running job's hold on GPUs, for usage.
type allocation struct {
	gpus  int
	start time.Time
}
