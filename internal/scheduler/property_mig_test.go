package scheduler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// modelFits is the matching rule as the checks state it: a MIG profile
// ("1g.10gb") takes only MIG devices of exactly that profile; anything else
// only whole GPUs whose model contains it.
func modelFits(g GPU, model string) bool {
	model = strings.ToLower(strings.TrimSpace(model))
	if IsMIGProfile(model) {
		return strings.EqualFold(g.Profile, model)
	}
	return g.Profile == "" && g.SharedSlots == 0 && strings.Contains(strings.ToLower(g.Model), model)
}

// migLayouts are ways an H100's seven compute slices are split, as MIG
// devices: profile, fraction of the GPU and memory of each.
var migLayouts = [][]GPU{
	{{Profile: "1g.10gb", Fraction: 1.0 / 7, MemoryMiB: 9984}, {Profile: "1g.10gb", Fraction: 1.0 / 7, MemoryMiB: 9984}, {Profile: "1g.10gb", Fraction: 1.0 / 7, MemoryMiB: 9984},
		{Profile: "1g.10gb", Fraction: 1.0 / 7, MemoryMiB: 9984}, {Profile: "1g.10gb", Fraction: 1.0 / 7, MemoryMiB: 9984}, {Profile: "1g.10gb", Fraction: 1.0 / 7, MemoryMiB: 9984},
		{Profile: "1g.10gb", Fraction: 1.0 / 7, MemoryMiB: 9984}},
	{{Profile: "3g.40gb", Fraction: 3.0 / 7, MemoryMiB: 40448}, {Profile: "3g.40gb", Fraction: 3.0 / 7, MemoryMiB: 40448}},
	{{Profile: "3g.40gb", Fraction: 3.0 / 7, MemoryMiB: 40448}, {Profile: "2g.20gb", Fraction: 2.0 / 7, MemoryMiB: 20096}, {Profile: "1g.10gb", Fraction: 1.0 / 7, MemoryMiB: 9984},
		{Profile: "1g.10gb", Fraction: 1.0 / 7, MemoryMiB: 9984}},
}

// drawMIGCase is drawCase with some GPUs split into MIG devices (which
// replace the GPU, as a node agent registers them) and some jobs, running
// and pending, and bookings on MIG profiles.
func drawMIGCase(t *rapid.T) (Snapshot, Config) {
	s, c := drawCase(t)
	var gpus []GPU
	var slices []int64
	for _, g := range s.GPUs {
		if rapid.IntRange(0, 2).Draw(t, "split") > 0 {
			gpus = append(gpus, g)
			continue
		}
		for k, m := range migLayouts[rapid.IntRange(0, len(migLayouts)-1).Draw(t, "layout")] {
			d := g
			d.ID, d.Profile, d.Fraction, d.MemoryMiB = g.ID*10+int64(k), m.Profile, m.Fraction, m.MemoryMiB
			gpus = append(gpus, d)
			slices = append(slices, d.ID)
		}
	}
	s.GPUs = gpus
	profiles := []string{"1g.10gb", "1G.10GB", "3g.40gb", "2g.20gb", "7g.80gb"}
	held := map[int64]bool{}
	for _, r := range s.Running {
		for _, g := range r.GPUs {
			held[g] = true
		}
	}
	for i := range s.Running { // some running jobs hold slices instead
		r := &s.Running[i]
		if len(slices) == 0 || !rapid.Bool().Draw(t, "rslice") {
			continue
		}
		if d := rapid.SampledFrom(slices).Draw(t, "rsliceid"); !held[d] {
			held[d] = true
			r.GPUs, r.GPUCount, r.GPUModel = []int64{d}, 1, "1g.10gb"
		}
	}
	for i := range s.Pending {
		if rapid.IntRange(0, 2).Draw(t, "pslice") == 0 {
			s.Pending[i].GPUModel = rapid.SampledFrom(profiles).Draw(t, "pprofile")
		}
	}
	for i := range s.Bookings {
		if s.Bookings[i].GPUIDs == nil && rapid.IntRange(0, 3).Draw(t, "bslice") == 0 {
			s.Bookings[i].GPUModel, s.Bookings[i].NodeID = "1g.10gb", 0
		}
	}
	return s, c
}

// TestPropertiesMIG checks every plan invariant on clusters with MIG
// devices beside whole GPUs, and that no device is given twice, a
// whole-GPU job never gets a MIG device, and a profile job gets only
// devices of its profile.
func TestPropertiesMIG(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s, c := drawMIGCase(t)
		pl := Schedule(s, c)
		checkPlan(t, s, c, pl)
		checkSlices(t, s, pl)
		if other := Schedule(shuffled(t, s), c); !cmp.Equal(pl, other) {
			t.Fatalf("shuffled input changes the plan:\n%s", cmp.Diff(pl, other))
		}
	})
}

// checkSlices: every device once at most, running jobs' included; profile
// jobs on their profile only; whole-GPU jobs on whole GPUs only.
func checkSlices(t fataler, s Snapshot, pl Plan) {
	gs, _ := gpuIndex(s)
	jobs := map[int64]Job{}
	for _, j := range s.Pending {
		if _, dup := jobs[j.ID]; !dup {
			jobs[j.ID] = j
		}
	}
	holder := map[int64]string{}
	for _, r := range s.Running {
		for _, g := range r.GPUs {
			holder[g] = fmt.Sprint("running job ", r.ID)
		}
	}
	for _, st := range pl.Starts {
		j := jobs[st.JobID]
		for _, id := range st.GPUIDs {
			g := gs[id]
			if h, ok := holder[id]; ok {
				t.Fatalf("device %d given to job %d is held by %s", id, j.ID, h)
			}
			holder[id] = fmt.Sprint("job ", j.ID)
			switch {
			case IsMIGProfile(j.GPUModel) && !strings.EqualFold(g.Profile, strings.TrimSpace(j.GPUModel)):
				t.Fatalf("job %d asks for %q and got %+v", j.ID, j.GPUModel, g)
			case !IsMIGProfile(j.GPUModel) && g.Profile != "":
				t.Fatalf("whole-GPU job %d (%q) placed on MIG device %+v", j.ID, j.GPUModel, g)
			}
		}
	}
}

func TestIsMIGProfile(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"1g.10gb": true, "3g.40gb": true, "7g.80gb": true, "1c.3g.40gb": true, "1g.10gb+me": true, " 1G.10GB ": true,
		"": false, "H100": false, "NVIDIA H100 80GB HBM3": false, "a100": false, "1g": false, "g.10gb": false,
	}
	for in, want := range tests {
		if got := IsMIGProfile(in); got != want {
			t.Errorf("IsMIGProfile(%q) = %t, want %t", in, got, want)
		}
	}
}
