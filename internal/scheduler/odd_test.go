package scheduler

import (
	"math"
	"testing"
	"time"
)

// TestOddInputs checks that malformed or extreme snapshots and
// configurations give a plan that keeps the invariants, without panics.
func TestOddInputs(t *testing.T) {
	t.Parallel()
	far := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		s func() Snapshot
		c Config
	}{
		"nil maps and nothing else": {func() Snapshot { return Snapshot{Now: t0} }, DefaultConfig()},
		"zero times everywhere": {func() Snapshot {
			s := mk(1, 4)
			s.Now = time.Time{}
			s.Running = []Job{{ID: 90, UserID: 1, GPUs: ids(10), Priority: 1, Preemptible: true}}
			s.Pending = []Job{{ID: 1, UserID: 2, GPUCount: 4, Priority: 4}, {ID: 2, UserID: 2, GPUCount: 1}}
			return s
		}, DefaultConfig()},
		"year-9999 booking and estimates of centuries": {func() Snapshot {
			s := mk(1, 2)
			s.Bookings = []Booking{{ID: 1, UserID: 1, GPUCount: 1, Start: at(time.Hour), End: far},
				{ID: 2, UserID: 1, GPUCount: 1, Start: time.Time{}, End: far}}
			s.Running = []Job{run(90, 3, time.Hour, math.MaxInt64/2, ids(10))}
			s.Pending = []Job{pend(1, 2, 1, est(math.MaxInt64)), pend(2, 2, 2, est(-time.Hour)), pend(3, 1, 1)}
			return s
		}, DefaultConfig()},
		"duplicates and dangling references": {func() Snapshot {
			s := mk(2, 2)
			s.Nodes = append(s.Nodes, s.Nodes[0])
			s.GPUs = append(s.GPUs, s.GPUs[0], GPU{ID: 99, NodeID: 42, Healthy: true})
			s.Running = []Job{run(90, 1, time.Hour, time.Hour, ids(10, 10, 99, 1234)), run(90, 1, time.Hour, time.Hour, ids(11)),
				run(91, 2, time.Hour, time.Hour, ids(10))}
			s.Pending = []Job{pend(1, 1, 1), pend(1, 1, 2), pend(90, 1, 1), pend(2, 1, 0), pend(3, 1, -1)}
			s.Bookings = []Booking{{ID: 1, UserID: 2, GPUCount: 0, Start: at(-time.Hour), End: at(time.Hour)},
				{ID: 1, UserID: 2, GPUCount: 2, Start: at(time.Hour), End: at(-time.Hour)},
				{ID: 2, UserID: 2, GPUCount: 1, GPUIDs: ids(12, 12, 777), Start: at(-time.Hour), End: at(time.Hour)}}
			return s
		}, DefaultConfig()},
		"an invalid configuration": {func() Snapshot {
			s := mk(1, 2)
			s.Pending = []Job{pend(1, 1, 1, est(0)), pend(2, 1, 2)}
			return s
		}, Config{Policy: "lottery", Backfill: true, Preemption: true, MinRuntime: -1}},
		"NaN and infinite usage and shares": {func() Snapshot {
			s := mk(1, 1)
			s.Users = map[int64]Principal{1: {Usage: math.NaN(), Share: math.Inf(1)}, 2: {Usage: math.Inf(1), Share: -1}}
			s.Pending = []Job{pend(1, 1, 1), pend(2, 2, 1)}
			return s
		}, DefaultConfig()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tc.s()
			pl := Schedule(s, tc.c)
			checkPlacements(t, s, pl)
			seen := map[int64]bool{}
			for _, st := range pl.Starts {
				seen[st.JobID] = true
			}
			for _, e := range pl.Pending {
				if seen[e.JobID] {
					t.Errorf("job %d both starts and waits", e.JobID)
				}
				seen[e.JobID] = true
			}
			for _, j := range s.Pending {
				if !seen[j.ID] && j.ID != 90 {
					t.Errorf("job %d neither starts nor waits", j.ID)
				}
			}
		})
	}
}
