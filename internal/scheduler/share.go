package scheduler

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// IsShare reports whether a job asks for part of one shared GPU
// (Job.GPUShare or Job.GPUShareMemoryMiB) rather than whole GPUs.
func (j *Job) IsShare() bool { return j.GPUShare > 0 || j.GPUShareMemoryMiB > 0 }

// SlotsNeeded is how many slots of a GPU shared slots ways, each of
// slotMiB memory, a share request takes: enough for the fraction (share ×
// slots, rounded up) and for the memory (memMiB / slotMiB, rounded up),
// at least 1. More than slots means that GPU cannot hold it.
func SlotsNeeded(share float64, memMiB int64, slots int, slotMiB int64) int {
	if slots <= 0 {
		return math.MaxInt32
	}
	k := 1
	if share > 0 {
		k = max(k, int(math.Ceil(share*float64(slots)-1e-9)))
	}
	if memMiB > 0 {
		if slotMiB <= 0 {
			return math.MaxInt32
		}
		k = max(k, int((memMiB+slotMiB-1)/slotMiB))
	}
	return k
}

// sharedGPU is one shared GPU as the pass sees it: its slot devices.
type sharedGPU struct {
	node    int32
	index   int
	slots   []int32 // its present slot devices, in ID order
	n       int     // how many slots the GPU is shared into
	slotMiB int64
}

// sharedGPUs groups the slot devices by their GPU (node, index), once.
func (p *pass) sharedGPUs() []sharedGPU {
	if p.shared != nil {
		return p.shared
	}
	p.shared = []sharedGPU{}
	for gi := range p.gpus {
		g := &p.gpus[gi]
		if g.slots == 0 {
			continue
		}
		if k := len(p.shared) - 1; k >= 0 && p.shared[k].node == g.node && p.shared[k].index == g.index {
			p.shared[k].slots = append(p.shared[k].slots, int32(gi))
			continue
		}
		p.shared = append(p.shared, sharedGPU{node: g.node, index: g.index, slots: []int32{int32(gi)}, n: g.slots,
			slotMiB: p.classes[g.class].mem})
	}
	return p.shared
}

// need is how many of sg's slots j takes.
func (sg *sharedGPU) need(j *Job) int {
	return SlotsNeeded(j.GPUShare, j.GPUShareMemoryMiB, sg.n, sg.slotMiB)
}

// decideShare settles a share job: it takes the slots of one shared GPU
// now, preempts lower-priority share jobs (preemptShare) or waits, with an
// estimated start (earliestShare). Slots are offered only to share jobs, so a share job
// neither waits behind the head nor blocks it (nor anyone): whole-GPU and
// MIG jobs compete for other devices. Placement is best fit: of the
// shared GPUs (matching its model and node) with enough free slots, the
// one whose slots exceed the request by the least memory (a quarter takes
// a quarter slot, not half a GPU), then the one left with the least free
// memory, so that GPUs fill up one by one and large shares still find
// room; then node ID, index.
func (p *pass) decideShare(qj *qjob, o *outcome) {
	j := qj.job
	if msg := p.shareNeverFits(j, qj.f); msg != "" {
		o.code, o.reason, o.noETA = ReasonNoMatchingGPU, msg, true
		return
	}
	gs := p.placeShare(j, qj.f, qj.dur)
	delta := p.quotaNeed(j, qj.f)
	if gs != nil {
		delta = p.quotaDelta(j, gs) // its slots' fraction; 0 on slots its owner booked
	}
	if code, msg := p.quotaBlock(j, qj.f, delta); code != "" {
		o.code, o.reason = code, msg
		return
	}
	if gs != nil {
		p.start(qj, o, gs, false)
		return
	}
	if p.preemptShare(qj, o) { // share_wait.go
		return
	}
	o.waits = true // its estimate comes from earliestShare
	p.waiting++
	o.code, o.reason = ReasonNoCapacity, fmt.Sprintf("needs %s; no shared GPU has that much free now", shareWords(j))
}

// placeShare picks the slots of one shared GPU for j, or nil. A shared
// GPU whose free slots booked by j's owner (an active booking) hold j
// comes first, and j takes those booked slots (see booking_share.go).
func (p *pass) placeShare(j *Job, f *filter, dur int64) []int32 {
	var best []int32
	bestOwn, bestWaste, bestLeft := false, int64(0), int64(-1)
	for i := range p.sharedGPUs() {
		sg := &p.shared[i]
		if !f.ok(p, sg.slots[0]) {
			continue
		}
		k := sg.need(j)
		if k > len(sg.slots) {
			continue
		}
		var own, other []int32
		for _, gi := range sg.slots {
			switch {
			case !p.gpus[gi].free || (p.pins[gi] != nil && p.blockedBy(gi, j.UserID, dur) >= 0):
			case p.pins[gi] != nil && p.ownActive(gi, j.UserID):
				own = append(own, gi)
			default:
				other = append(other, gi)
			}
		}
		free := append(own, other...)
		if len(free) < k {
			continue
		}
		isOwn := len(own) >= k
		waste := int64(k)*sg.slotMiB - max(int64(j.GPUShare*float64(int64(sg.n)*sg.slotMiB)), j.GPUShareMemoryMiB)
		left := int64(len(free)-k) * sg.slotMiB
		if bestLeft < 0 || (isOwn && !bestOwn) || (isOwn == bestOwn && (waste < bestWaste || (waste == bestWaste && left < bestLeft))) {
			best, bestOwn, bestWaste, bestLeft = free[:k], isOwn, waste, left
		}
	}
	if best != nil {
		best = slices.Clone(best)
		slices.Sort(best)
	}
	return best
}

// shareNeverFits explains a share job no shared GPU can ever hold; "" when
// one could.
func (p *pass) shareNeverFits(j *Job, f *filter) string {
	switch {
	case j.GPUCount != 1:
		return fmt.Sprintf("asks for a share of %d GPUs; a share is part of one GPU", j.GPUCount)
	case j.GPUShare < 0 || j.GPUShare > 1 || j.GPUShareMemoryMiB < 0:
		return fmt.Sprintf("asks for %s; a share is more than 0 and at most 1 GPU", shareWords(j))
	}
	matching, largest := 0, int64(0)
	for i := range p.sharedGPUs() {
		sg := &p.shared[i]
		if !f.ok(p, sg.slots[0]) {
			continue
		}
		matching++
		largest = max(largest, int64(sg.n)*sg.slotMiB)
		if sg.need(j) <= len(sg.slots) {
			return ""
		}
	}
	switch {
	case matching == 0 && j.GPUModel == "":
		return "no GPU in the cluster is shared"
	case matching == 0:
		return fmt.Sprintf("no shared GPU in the cluster matches model %q", j.GPUModel)
	}
	return fmt.Sprintf("needs %s; the largest shared GPU has %d MiB", shareWords(j), largest)
}

// shareWords says what a share job asks for: "0.25 of a GPU", "20480 MiB
// of a shared GPU", "0.5 of a \"H100\" GPU with 40960 MiB".
func shareWords(j *Job) string {
	var s string
	gpu := "GPU"
	if j.GPUModel != "" {
		gpu = strconv.Quote(strings.TrimSpace(j.GPUModel)) + " GPU"
	}
	switch {
	case j.GPUShare > 0 && j.GPUShareMemoryMiB > 0:
		s = fmt.Sprintf("%s of a %s with %d MiB", strconv.FormatFloat(j.GPUShare, 'g', 4, 64), gpu, j.GPUShareMemoryMiB)
	case j.GPUShare > 0:
		s = fmt.Sprintf("%s of a %s", strconv.FormatFloat(j.GPUShare, 'g', 4, 64), gpu)
	default:
		s = fmt.Sprintf("%d MiB of a shared %s", j.GPUShareMemoryMiB, gpu)
	}
	return s
}
