package calgrid

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// ShareText writes a fraction of a GPU as people read it: "0.5", "0.25".
func ShareText(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }

// placeShare draws a booking of part of a shared GPU that names no slots
// (not pinned yet) on the slots of one shared GPU of its model (and node):
// as many slots as its fraction takes there, the GPU with the most slots
// free for its window first (then node and index order), and on it the
// slots with the fewest clashes. It is tentative, as a count is.
func placeShare(gpus []GPU, it *Item, out map[int64][]placement) {
	model := strings.ToLower(it.Model)
	var best []int64
	bestFree := -1
	for i := 0; i < len(gpus); {
		g := gpus[i]
		j := i + 1
		for j < len(gpus) && gpus[j].NodeID == g.NodeID && gpus[j].Index == g.Index {
			j++
		}
		group := gpus[i:j]
		i = j
		if g.Ways == 0 || (it.NodeID != 0 && g.NodeID != it.NodeID) || !strings.Contains(strings.ToLower(g.Model), model) {
			continue
		}
		k := int(math.Ceil(it.Share*float64(g.Ways) - 1e-9))
		if k > len(group) {
			continue
		}
		var free, busy []int64
		for _, s := range group {
			if clashes(out[s.ID], it) {
				busy = append(busy, s.ID)
			} else {
				free = append(free, s.ID)
			}
		}
		if len(free) > bestFree {
			bestFree, best = len(free), append(free, busy...)[:k]
		}
	}
	for _, id := range best {
		out[id] = append(out[id], placement{item: it, tentative: true})
	}
}

// clashes reports whether a placement of ps overlaps it's window.
func clashes(ps []placement, it *Item) bool {
	for _, p := range ps {
		if p.item.Start.Before(it.End) && it.Start.Before(p.item.End) {
			return true
		}
	}
	return false
}

// unitBusy reports whether the GPU at gpus[gi] is taken at some moment of
// [s, e): a whole GPU or MIG device by anything placed on it, a shared GPU
// (gi its first slot) by anything placed on any of its slots.
func unitBusy(gpus []GPU, gi int, placed map[int64][]placement, s, e time.Time) bool {
	g := gpus[gi]
	for j := gi; j < len(gpus); j++ {
		o := gpus[j]
		if j > gi && (g.Ways == 0 || o.NodeID != g.NodeID || o.Index != g.Index) {
			break
		}
		for _, p := range placed[o.ID] {
			if p.item.Start.Before(e) && s.Before(p.item.End) {
				return true
			}
		}
	}
	return false
}
