package views

import (
	"fmt"
	"strconv"

	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// gpuGroup is what a node card draws in one tile: a whole GPU, or a GPU in
// MIG mode as its slices.
type gpuGroup struct {
	GPU    GPU   // the whole GPU; for a MIG GPU, its first slice
	Slices []GPU // a MIG GPU's slices, in order; nil for a whole GPU
}

// gpuGroups gathers a node's devices into tiles: each whole GPU alone, the
// MIG devices of one GPU (same index) together.
func gpuGroups(gpus []GPU) []gpuGroup {
	var out []gpuGroup
	for _, g := range gpus {
		if g.Profile == "" {
			out = append(out, gpuGroup{GPU: g})
			continue
		}
		if n := len(out); n > 0 && out[n-1].Slices != nil && out[n-1].GPU.Index == g.Index {
			out[n-1].Slices = append(out[n-1].Slices, g)
			continue
		}
		out = append(out, gpuGroup{GPU: g, Slices: []GPU{g}})
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
	gpus, free, slices, sfree := 0, 0, 0, 0
	for _, g := range n.GPUs {
		switch {
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
	if slices == 0 {
		return fmt.Sprintf("%d of %s free", free, words.Count(gpus, "GPU"))
	}
	return fmt.Sprintf("%d of %s and %d of %s free", free, words.Count(gpus, "GPU"), sfree, words.Count(slices, "MIG slice"))
}
