package scheduler

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// quotaCount is what a job's devices count against a quota, as the checks
// state it: each device the part of a GPU it is (its Fraction; a slot of a
// GPU shared N ways 1/N; a whole GPU 1), a share's slots at most the one
// GPU they are part of.
func quotaCount(s Snapshot, j Job, ids []int64) float64 {
	n := 0.0
	for _, id := range ids {
		f := 1.0
		if i := slices.IndexFunc(s.GPUs, func(g GPU) bool { return g.ID == id }); i >= 0 {
			switch g := s.GPUs[i]; {
			case g.Fraction > 0:
				f = g.Fraction
			case g.SharedSlots > 0:
				f = 1 / float64(g.SharedSlots)
			}
		}
		n += f
	}
	if j.IsShare() {
		n = min(n, 1)
	}
	return n
}

// deviceFits is the matching rule as the checks state it: a share job
// takes slots of shared GPUs of its model; any other job no slot, and a
// device of its model (modelFits) with its memory.
func deviceFits(g GPU, j Job) bool {
	if j.IsShare() {
		return g.SharedSlots > 0 && g.Profile == "" &&
			strings.Contains(strings.ToLower(g.Model), strings.ToLower(strings.TrimSpace(j.GPUModel)))
	}
	return modelFits(g, j.GPUModel) && g.MemoryMiB >= j.MinMemoryMiB
}

// drawShareCase is drawMIGCase with some whole GPUs shared into slots
// (which replace the GPU, as its agent registers them), some running jobs
// holding slots, and some pending jobs asking for shares by fraction or
// memory.
func drawShareCase(t *rapid.T) (Snapshot, Config) {
	s, c := drawMIGCase(t)
	var gpus []GPU
	var groups [][]int64
	for _, g := range s.GPUs {
		if g.Profile != "" || rapid.IntRange(0, 2).Draw(t, "share") > 0 {
			gpus = append(gpus, g)
			continue
		}
		n := rapid.SampledFrom([]int{2, 3, 4, 7}).Draw(t, "slots")
		var ids []int64
		for k := range n {
			d := g
			d.ID, d.SharedSlots, d.MemoryMiB = g.ID*100+50+int64(k), n, g.MemoryMiB/int64(n)
			gpus = append(gpus, d)
			ids = append(ids, d.ID)
		}
		groups = append(groups, ids)
	}
	s.GPUs = gpus
	for i := range s.Running { // some running jobs hold slots instead
		r := &s.Running[i]
		if len(groups) == 0 || !rapid.Bool().Draw(t, "rshare") {
			continue
		}
		gr := groups[rapid.IntRange(0, len(groups)-1).Draw(t, "rgroup")]
		k := rapid.IntRange(1, len(gr)).Draw(t, "rslots")
		free := 0
		for _, id := range gr {
			if !heldBy(s, id) {
				free++
			}
		}
		if free < k {
			continue
		}
		var ids []int64
		for _, id := range gr {
			if len(ids) < k && !heldBy(s, id) {
				ids = append(ids, id)
			}
		}
		r.GPUs, r.GPUCount, r.GPUModel, r.GPUShare = ids, 1, "", float64(k)/float64(len(gr))
	}
	for i := range s.Pending {
		j := &s.Pending[i]
		if rapid.IntRange(0, 2).Draw(t, "pshare") > 0 {
			continue
		}
		j.GPUCount, j.MinMemoryMiB = 1, 0
		j.GPUModel = rapid.SampledFrom([]string{"", "", "H100", "a100", "V100"}).Draw(t, "smodel")
		switch rapid.IntRange(0, 2).Draw(t, "skind") {
		case 0:
			j.GPUShare = rapid.SampledFrom([]float64{0.1, 0.25, 0.3, 0.5, 0.75, 1}).Draw(t, "fraction")
		case 1:
			j.GPUShareMemoryMiB = rapid.SampledFrom([]int64{5000, 10240, 20480, 40960, 90000}).Draw(t, "smem")
		default:
			j.GPUShare, j.GPUShareMemoryMiB = 0.25, 30000
		}
	}
	return s, c
}

// heldBy reports whether a running job of s holds device id.
func heldBy(s Snapshot, id int64) bool {
	for _, r := range s.Running {
		for _, g := range r.GPUs {
			if g == id {
				return true
			}
		}
	}
	return false
}

// TestPropertiesShare checks every plan invariant on clusters of whole
// GPUs, MIG devices and shared GPUs with jobs of all three kinds, and that
// no device is over-committed and whole GPUs are never shared.
func TestPropertiesShare(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s, c := drawShareCase(t)
		pl := Schedule(s, c)
		checkPlan(t, s, c, pl)
		checkSlices(t, s, pl)
		checkShares(t, s, pl)
		if other := Schedule(shuffled(t, s), c); !cmp.Equal(pl, other) {
			t.Fatalf("shuffled input changes the plan:\n%s", cmp.Diff(pl, other))
		}
	})
}

// checkShares: a share start takes exactly the slots its fraction and
// memory need, all of one shared GPU, and what is held of a shared GPU
// (slots and the memory of its slots) never exceeds it; no whole-GPU or
// MIG job gets a slot.
func checkShares(t fataler, s Snapshot, pl Plan) {
	gs, _ := gpuIndex(s)
	jobs := map[int64]Job{}
	for _, j := range s.Pending {
		if _, dup := jobs[j.ID]; !dup {
			jobs[j.ID] = j
		}
	}
	type key struct {
		node  int64
		index int
	}
	held := map[key]int{}
	for _, r := range s.Running {
		for _, id := range r.GPUs {
			if g, ok := gs[id]; ok && g.SharedSlots > 0 {
				held[key{g.NodeID, g.Index}]++
			}
		}
	}
	for _, st := range pl.Starts {
		j := jobs[st.JobID]
		if !j.IsShare() {
			for _, id := range st.GPUIDs {
				if gs[id].SharedSlots > 0 {
					t.Fatalf("job %d (whole or MIG) placed on slot %+v", j.ID, gs[id])
				}
			}
			continue
		}
		first := gs[st.GPUIDs[0]]
		k := key{first.NodeID, first.Index}
		if want := SlotsNeeded(j.GPUShare, j.GPUShareMemoryMiB, first.SharedSlots, first.MemoryMiB); len(st.GPUIDs) != want {
			t.Fatalf("share job %d (%g, %d MiB) got %d slots of a %d-way GPU, needs %d", j.ID, j.GPUShare,
				j.GPUShareMemoryMiB, len(st.GPUIDs), first.SharedSlots, want)
		}
		for _, id := range st.GPUIDs {
			if g := gs[id]; g.SharedSlots == 0 || (key{g.NodeID, g.Index}) != k {
				t.Fatalf("share job %d spans devices %v", j.ID, st.GPUIDs)
			}
		}
		if mem := int64(len(st.GPUIDs)) * first.MemoryMiB; j.GPUShareMemoryMiB > mem {
			t.Fatalf("share job %d asks %d MiB, its slots have %d", j.ID, j.GPUShareMemoryMiB, mem)
		}
		held[k] += len(st.GPUIDs)
		if held[k] > first.SharedSlots {
			t.Fatalf("GPU %v over-committed: %d of %d slots", k, held[k], first.SharedSlots)
		}
	}
}
