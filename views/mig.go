package views

import (
	"fmt"
	"strconv"

	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// gpuGroup is what a node card draws in one tile: a whole GPU, or a GPU in
// MIG mode as its slices.
type gpuGroup struct {
	GPU    GPU   // the whole GPU; for a MIG or shared GPU, its first slice or slot
	Slices []GPU // a MIG GPU's slices or a shared GPU's slots, in order; nil for a whole GPU
	Shared bool  // Slices are a shared GPU's slots
}

// gpuGroups gathers a node's devices into tiles: each whole GPU alone, the
// MIG devices of one GPU (same index) together, the slots of a shared GPU
// together.
func gpuGroups(gpus []GPU) []gpuGroup {
	var out []gpuGroup
	for _, g := range gpus {
		if g.Profile == "" && g.SharedSlots == 0 {
			out = append(out, gpuGroup{GPU: g})
			continue
		}
		shared := g.SharedSlots > 0
		if n := len(out); n > 0 && out[n-1].Slices != nil && out[n-1].Shared == shared && out[n-1].GPU.Index == g.Index {
			out[n-1].Slices = append(out[n-1].Slices, g)
			continue
		}
		out = append(out, gpuGroup{GPU: g, Slices: []GPU{g}, Shared: shared})
	}
	return out
}

// migLayoutText writes a MIG GPU's slices: "7×1g.10gb", "3g.40gb, 2×1g.10gb".
func migLayoutText(slices []GPU) string {
	s := ""
	for i := 0; i < len(slices); {
		j := i
		for j < len(slices) && slices[j].Profile == slices[i].Profile {
			j++
		}
		if s != "" {
			s += ", "
		}
		if j-i > 1 {
			s += strconv.Itoa(j-i) + "×"
		}
		s += slices[i].Profile
		i = j
	}
	return s
}

// freeSlices is how many of a MIG GPU's slices are free.
func freeSlices(slices []GPU) int {
	n := 0
	for _, g := range slices {
		if g.State == "free" {
			n++
		}
	}
	return n
}

// sliceStyle sizes a slice cell by its compute slices (of seven).
func sliceStyle(g GPU) string {
	return fmt.Sprintf("flex-grow: %d", max(1, g.Slices))
}

// sliceLabel names a slice for a screen reader.
func sliceLabel(g GPU) string {
	return fmt.Sprintf("GPU %d slice %s: %s", g.Index, g.Profile, StateLabel(g.State))
}

// nodeCounts says how many of a node's GPUs, and of its MIG slices if it
// has any, are free: "5 of 8 GPUs free" or "3 of 4 GPUs and 20 of 28 MIG
// slices free".
func nodeCounts(n Node) string {
	gpus, free, slices, sfree, slots, slfree := 0, 0, 0, 0, 0, 0
	for _, g := range n.GPUs {
		switch {
		case g.SharedSlots > 0:
			slots++
			if g.State == "free" {
				slfree++
			}
		case g.Profile != "":
			slices++
			if g.State == "free" {
				sfree++
			}
		default:
			gpus++
			if g.State == "free" {
				free++
			}
		}
	}
	s := fmt.Sprintf("%d of %s", free, words.Count(gpus, "GPU"))
	if slices > 0 {
		s += fmt.Sprintf(" and %d of %s", sfree, words.Count(slices, "MIG slice"))
	}
	if slots > 0 {
		s += fmt.Sprintf(" and %d of %s", slfree, words.Count(slots, "shared slot"))
	}
	return s + " free"
}

// slotLabel names slot i of a shared GPU for a screen reader.
func slotLabel(g GPU, i int) string {
	return fmt.Sprintf("GPU %d shared slot %d of %d: %s", g.Index, i+1, g.SharedSlots, StateLabel(g.State))
}
