package scheduler

import (
	"fmt"
	"time"
)

// preemptShare lets a share job with no room stop lower-priority share
// jobs, as the head stops whole-GPU jobs (preempt): with Preemption on, the
// victims are running share jobs that are Preemptible, of strictly lower
// Priority and have run at least MinRuntime; only slots that are usable
// and not kept from the job by a booking count. On each matching shared
// GPU it takes the cheapest set (least work lost, then lower priorities,
// fewer jobs, newer, lower IDs) that frees the slots the job needs there,
// slots of jobs already stopping counting as freeing (then nothing more is
// stopped and the job waits for them); of the GPUs, the cheapest set. It
// stops nothing when no GPU can be freed so, and at most one share job
// preempts per pass. It reports whether the job is now preempting, with
// its outcome set: expected to start now, on the slots it will take once
// they stop (kept in the profile for the estimates of later share jobs).
func (p *pass) preemptShare(qj *qjob, o *outcome) bool {
	j := qj.job
	if !p.cfg.Preemption || p.sharePreempted || p.lostCapped(0) {
		return false
	}
	type choice struct {
		set          *victimSet
		waits, slots []int32
	}
	var best *choice
	for i := range p.sharedGPUs() {
		sg := &p.shared[i]
		k := sg.need(j)
		if !qj.f.ok(p, sg.slots[0]) || k > len(sg.slots) {
			continue
		}
		frees := map[int32]int{}
		var free, waits []int32
		stopping := map[int32]bool{}
		for _, gi := range sg.slots {
			g := &p.gpus[gi]
			if !g.usable || (p.pins[gi] != nil && p.blockedBy(gi, j.UserID, qj.dur) >= 0) {
				continue
			}
			switch h := g.holder; {
			case g.free:
				free = append(free, gi)
			case h >= 0 && p.running[h].job.Stopping:
				free = append(free, gi)
				if !stopping[h] {
					stopping[h], waits = true, append(waits, h)
				}
			case h >= 0 && p.shareVictim(p.running[h].job, j):
				frees[h]++
			}
		}
		set := &victimSet{}
		if len(free) < k {
			if set = p.cheapestCover(frees, k-len(free)); set == nil {
				continue
			}
		}
		if best == nil || set.cheaper(best.set) {
			slots := free
			for _, v := range set.runs {
				for _, gi := range p.running[v].gpus {
					if p.gpus[gi].slots > 0 && p.gpus[gi].node == sg.node && p.gpus[gi].index == sg.index {
						slots = append(slots, gi)
					}
				}
			}
			best = &choice{set, waits, slots[:k]}
		}
	}
	if best == nil || (len(best.set.runs) == 0 && len(best.waits) == 0) {
		return false
	}
	p.sharePreempted = true
	for _, v := range best.set.runs {
		p.preempts = append(p.preempts, Preemption{JobID: p.running[v].job.ID, ForJobID: j.ID, Rule: RulePriority,
			Reason: fmt.Sprintf("preempted for job %d (priority %d), which needs %s", j.ID, j.Priority, shareWords(j))})
	}
	p.shareHolds = append(p.shareHolds, startSpan{best.slots, qj.dur})
	o.waits, o.noETA, o.eta = true, true, 0
	p.waiting++
	o.code, o.reason = ReasonPreempting, p.preemptingWords(j, best.set.runs, best.waits)
	return true
}

// shareVictim reports whether running job r may be stopped for share job j.
func (p *pass) shareVictim(r, j *Job) bool {
	return r.IsShare() && r.Preemptible && r.Priority < j.Priority && p.now.Sub(r.StartedAt) >= time.Duration(p.cfg.MinRuntime)
}

// earliestShare is earliest for a share job: the first time ≥ lo at which
// one matching shared GPU has the slots it needs free for its run (by the
// running jobs' estimated ends, this pass's starts, bookings and the
// estimates of the share jobs before it), and those slots; forever and
// nil when none ever does. Ties go to the shared GPUs in order.
func (p *pass) earliestShare(qj *qjob, rq *request, lo int64) (int64, []int32) {
	pr := p.prof
	best, at := forever, -1
	for i := range p.sharedGPUs() {
		sg := &p.shared[i]
		k := sg.need(qj.job)
		if !qj.f.ok(p, sg.slots[0]) || k > len(sg.slots) {
			continue
		}
		evs := p.evBuf[:0]
		for _, gi := range sg.slots {
			if p.gpus[gi].usable {
				evs, p.winBuf = pr.events(gi, rq, lo, evs, p.winBuf)
			}
		}
		p.evBuf = evs
		if t := sweep(evs, k, best); t < best {
			best, at = t, i
		}
	}
	if at < 0 {
		return forever, nil
	}
	sg := &p.shared[at]
	var gs []int32
	for _, gi := range sg.slots {
		if len(gs) < sg.need(qj.job) && p.gpus[gi].usable && pr.freeFor(gi, rq.user, best, rq.dur) {
			gs = append(gs, gi)
		}
	}
	return best, gs
}
