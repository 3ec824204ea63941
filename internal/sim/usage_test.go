package sim

import (
	"math"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// The folded usage must equal DecayedUsage summed over every allocation.
func TestUsageBookMatchesDecayedUsage(t *testing.T) {
	t.Parallel()
	const h = time.Hour
	sec := func(s int) time.Time { return Epoch.Add(time.Duration(s) * time.Second) }
	type alloc struct {
		user       int64
		gpus       int
		start, end int // seconds; end < 0: still running
	}
	allocs := []alloc{ // closed in order of end, as the event loop does
		{1, 2, 0, 3600}, {2, 8, 100, 5000}, {1, 1, 1800, 7200}, {1, 4, 7200, 7300}, {2, 1, 6000, -1}, {1, 3, 9000, -1},
	}
	b := newUsageBook(h)
	for _, a := range allocs {
		if a.end >= 0 {
			b.close(scheduler.Held{UserID: a.user, GPUs: a.gpus, Start: sec(a.start), End: sec(a.end)})
		}
	}
	for name, now := range map[string]int{"just after": 9001, "much later": 40000} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, user := range []int64{1, 2, 3} {
				want := 0.0
				var running []scheduler.Held
				for _, a := range allocs {
					if a.user != user {
						continue
					}
					end := a.end
					if end < 0 {
						end = now
						running = append(running, scheduler.Held{UserID: a.user, GPUs: a.gpus, Start: sec(a.start)})
					}
					want += scheduler.DecayedUsage(a.gpus, sec(a.start), sec(end), sec(now), h)
				}
				got := b.usage(user, sec(now), running)
				if math.Abs(got-want) > 1e-9*math.Max(1, want) {
					t.Errorf("user %d at %d: usage %v, want %v", user, now, got, want)
				}
			}
		})
	}
}
