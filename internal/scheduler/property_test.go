package scheduler

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestProperties checks, over random snapshots and configurations, the
// invariants every plan must keep.
func TestProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s, c := drawCase(t)
		before := fmt.Sprintf("%+v", s)
		pl := Schedule(s, c)
		if after := fmt.Sprintf("%+v", s); after != before {
			t.Fatalf("Schedule changed its snapshot:\n%s\n%s", before, after)
		}
		checkPlan(t, s, c, pl)
		if again := Schedule(s, c); !cmp.Equal(pl, again) {
			t.Fatalf("two runs differ:\n%s", cmp.Diff(pl, again))
		}
		if other := Schedule(shuffled(t, s), c); !cmp.Equal(pl, other) {
			t.Fatalf("shuffled input changes the plan:\n%s", cmp.Diff(pl, other))
		}
	})
}

// fataler is what the checks need of *testing.T and *rapid.T.
type fataler interface {
	Fatalf(format string, args ...any)
}

// checkPlan runs every check of a plan.
func checkPlan(t fataler, s Snapshot, c Config, pl Plan) {
	checkPlacements(t, s, pl)
	checkExplained(t, s, pl)
	checkQuotas(t, s, c, pl)
	checkBookings(t, s, c, pl)
	checkPreemptions(t, s, c, pl)
	checkHead(t, s, c, pl)
}

// gpuIndex maps GPU IDs to GPUs (first occurrence) and node IDs to nodes.
func gpuIndex(s Snapshot) (map[int64]GPU, map[int64]Node) {
	gs, ns := map[int64]GPU{}, map[int64]Node{}
	for _, n := range s.Nodes {
		ns[n.ID] = n
	}
	for _, g := range s.GPUs {
		gs[g.ID] = g
	}
	return gs, ns
}

// jobDur is a job's estimate or the default.
func jobDur(j Job, c Config) time.Duration {
	if j.EstimatedDuration > 0 && c.Estimates != EstimatesLearned {
		return j.EstimatedDuration
	}
	if d := learnedMedian(&j); d > 0 {
		return d
	}
	return time.Duration(c.DefaultDuration)
}

// checkPlacements: gang all-or-nothing on available, matching GPUs, one
// node unless allowed, no GPU twice, none held by a running job.
func checkPlacements(t fataler, s Snapshot, pl Plan) {
	gs, ns := gpuIndex(s)
	used := map[int64]int64{}
	for _, r := range s.Running {
		for _, g := range r.GPUs {
			used[g] = r.ID
		}
	}
	jobs := map[int64]Job{}
	for _, j := range s.Pending {
		if _, dup := jobs[j.ID]; !dup { // the first of duplicate IDs counts
			jobs[j.ID] = j
		}
	}
	for _, st := range pl.Starts {
		j, ok := jobs[st.JobID]
		if !ok {
			t.Fatalf("start of unknown job %d", st.JobID)
		}
		if len(st.GPUIDs) != j.GPUCount && !j.IsShare() { // a share's slots: checkShares
			t.Fatalf("job %d needs %d GPUs, got %v", j.ID, j.GPUCount, st.GPUIDs)
		}
		nodes := map[int64]bool{}
		for _, id := range st.GPUIDs {
			g, ok := gs[id]
			n := ns[g.NodeID]
			if !ok || !g.Healthy || g.Drained || g.Foreign || !n.Up || n.Drained {
				t.Fatalf("job %d placed on unavailable GPU %d (%+v on %+v)", j.ID, id, g, n)
			}
			if other, taken := used[id]; taken {
				t.Fatalf("GPU %d given to job %d is held by job %d", id, j.ID, other)
			}
			used[id] = j.ID
			if !deviceFits(g, j) {
				t.Fatalf("job %d (%q, %d MiB) placed on %+v", j.ID, j.GPUModel, j.MinMemoryMiB, g)
			}
			nodes[g.NodeID] = true
		}
		if len(nodes) > 1 && !j.AllowMultiNode {
			t.Fatalf("job %d spans nodes %v without asking", j.ID, nodes)
		}
	}
}

// checkExplained: every pending job either starts or has exactly one
// explanation, in queue order, positions 1…n, with a known code.
func checkExplained(t fataler, s Snapshot, pl Plan) {
	seen := map[int64]int{}
	for _, st := range pl.Starts {
		seen[st.JobID]++
	}
	codes := []string{ReasonNoCapacity, ReasonFragmented, ReasonNoMatchingGPU, ReasonUserQuota, ReasonTeamQuota,
		ReasonBehindHigher, ReasonReservedForHead, ReasonBooked, ReasonPreempting}
	for i, e := range pl.Pending {
		seen[e.JobID]++
		if e.Position != i+1 || !slices.Contains(codes, e.Code) || e.Reason == "" {
			t.Fatalf("explanation %d: %+v", i, e)
		}
	}
	for _, j := range s.Pending {
		if seen[j.ID] != 1 {
			t.Fatalf("job %d is started or explained %d times", j.ID, seen[j.ID])
		}
	}
	if len(seen) != len(s.Pending) {
		t.Fatalf("plan mentions %d jobs, %d pending", len(seen), len(s.Pending))
	}
}

// checkPreemptions: victims are running, preemptible, of lower base
// priority than the job they make room for, past MinRuntime — or, under
// las and gittins, checkpointing jobs past the cooldown; nothing is
// preempted once the lost share reaches its cap; one head at most, which
// does not start in the same plan.
func checkPreemptions(t fataler, s Snapshot, c Config, pl Plan) {
	running, pending := map[int64]Job{}, map[int64]Job{}
	for _, j := range s.Running {
		running[j.ID] = j
	}
	for _, j := range s.Pending {
		pending[j.ID] = j
	}
	started := startsOf(pl)
	// The cap counts what is lost, what earlier preemptions will lose
	// (Committed: reloads to come) and, under las and gittins, what the
	// victims chosen now lose (a checkpointing job its stop grace, any
	// other its run).
	lost := s.Lost.LostGPUSeconds + s.Lost.CommittedGPUSeconds
	for _, p := range pl.Preemptions {
		if c.Policy != PolicyLAS && c.Policy != PolicyGittins {
			break // other policies check the cap before choosing victims
		}
		v := running[p.JobID]
		ran := s.Now.Sub(v.StartedAt)
		if v.Checkpoint {
			ran = min(ran, stopGrace(&v))
		}
		lost += float64(len(v.GPUs)) * ran.Seconds()
	}
	if len(pl.Preemptions) > 0 && c.LAS.MaxLostShare > 0 && s.Lost.HeldGPUSeconds > 0 && lost >= c.LAS.MaxLostShare*s.Lost.HeldGPUSeconds {
		t.Fatalf("preempts to %v of %v GPU-s lost (%v committed), cap %v", lost, s.Lost.HeldGPUSeconds,
			s.Lost.CommittedGPUSeconds, c.LAS.MaxLostShare)
	}
	for _, p := range pl.Preemptions {
		v, ok := running[p.JobID]
		h := pending[p.ForJobID]
		byPrio := c.Preemption && v.Preemptible && v.Priority < h.Priority && s.Now.Sub(v.StartedAt) >= time.Duration(c.MinRuntime)
		// LAS demotion: a checkpointing job past the cooldown, in a later
		// level than the head.
		byDemotion := (c.Policy == PolicyLAS || c.Policy == PolicyGittins) && c.LAS.CheckpointPreemption && v.Checkpoint &&
			s.Now.Sub(v.StartedAt) >= time.Duration(c.LAS.PreemptCooldown)
		if l := c.LAS.DemoteSlowdownLimit; l > 0 && byDemotion {
			served := (v.AttainedGPUSeconds + float64(len(v.GPUs))*s.Now.Sub(v.StartedAt).Seconds()) / float64(max(1, len(v.GPUs)))
			byDemotion = served <= 0 || s.Now.Sub(v.SubmittedAt).Seconds() <= l*served
		}
		if !ok || (!byPrio && !byDemotion) {
			t.Fatalf("bad victim %+v for %+v", v, h)
		}
		if v.Stopping {
			t.Fatalf("job %d is stopping already and was chosen again for %d", v.ID, p.ForJobID)
		}
		if p.ForJobID != pl.Preemptions[0].ForJobID || !c.Preempts() {
			t.Fatalf("preemptions for several heads, or while off: %+v", pl.Preemptions)
		}
		if _, ok := started[p.ForJobID]; ok {
			t.Fatalf("head %d starts in the plan that preempts for it", p.ForJobID)
		}
		if whyOf(pl)[p.ForJobID].Code != ReasonPreempting {
			t.Fatalf("head %d not explained as preempting", p.ForJobID)
		}
	}
}
