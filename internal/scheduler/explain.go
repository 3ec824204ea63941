package scheduler

import (
	"fmt"
	"strings"
	"time"
)

// whyNoRoom words why a job that passed its quota cannot be placed now:
//
//   - ReasonBooked when it would fit but for other users' bookings or
//     holds: "GPUs booked by ana until 2026-11-24T14:00:00Z" (a hold:
//     "held by"; a future booking it would run into: "booked by ana from
//     … until …"); of several bookings in the way it names the one that
//     ends last, and At is that booking's end;
//   - ReasonFragmented when enough matching GPUs are free in all but not
//     on one node: "needs 4 GPUs on one node; at most 2 free on any node";
//   - ReasonNoCapacity otherwise: "needs 8 GPUs; 3 free".
func (p *pass) whyNoRoom(qj *qjob, rq *request) (string, string, time.Time) {
	perm := *rq
	perm.ignoreBookings, perm.avoid, perm.onlyOwn = true, nil, false
	if gs := p.placeNow(&perm); gs != nil {
		best := -1
		for _, gi := range gs {
			bi := p.blockedBy(gi, rq.user, rq.dur)
			if bi < 0 {
				continue
			}
			if best < 0 || endsLater(&p.bookings[bi], &p.bookings[best]) {
				best = bi
			}
		}
		if best >= 0 {
			b := &p.bookings[best]
			return ReasonBooked, p.bookedWords(b), b.b.End
		}
	}
	sh := shape{qj.f, rq.k, rq.multi, rq.nodes}
	if w, ok := p.words[sh]; ok && w.version == p.version {
		return w.code, w.reason, time.Time{}
	}
	if rq.nodes > 1 {
		code, reason := p.shapedWaitWords(qj.job, qj.f)
		p.words[sh] = wordsMemo{p.version, code, reason}
		return code, reason, time.Time{}
	}
	maxNode, total := p.freeCounts(qj.f)
	code, reason := ReasonNoCapacity, fmt.Sprintf("needs %s; %d free", p.gpuWords(qj.job), total)
	if !rq.multi && total >= rq.k {
		code, reason = ReasonFragmented, fmt.Sprintf("needs %s on one node; at most %d free on any node",
			p.gpuWords(qj.job), maxNode)
	}
	p.words[sh] = wordsMemo{p.version, code, reason}
	return code, reason, time.Time{}
}

// wordsMemo is a cached capacity sentence, valid until the next start.
type wordsMemo struct {
	version      int
	code, reason string
}

// endsLater orders bookings by end, later first, then by ID.
func endsLater(a, b *booking) bool {
	return a.end > b.end || (a.end == b.end && a.b.ID < b.b.ID)
}

// bookedWords names a booking in the way of a job.
func (p *pass) bookedWords(b *booking) string {
	verb, who := "booked", b.b.UserName
	if b.b.Hold {
		verb = "held"
	}
	if who == "" {
		who = fmt.Sprintf("user %d", b.b.UserID)
	}
	if b.active {
		return fmt.Sprintf("GPUs %s by %s until %s", verb, who, instant(b.b.End))
	}
	return fmt.Sprintf("GPUs %s by %s from %s until %s", verb, who, instant(b.b.Start), instant(b.b.End))
}

// behindWords says how many waiting jobs are ahead, in the policy's terms:
// "behind 3 higher-priority jobs" (priority, fairshare), "behind 3 earlier
// jobs" (fcfs), "behind 3 shorter jobs" (sjf).
func (p *pass) behindWords(n int) string {
	kind := "earlier" // fcfs, and unknown policies, which order as fcfs
	switch p.cfg.Policy {
	case PolicySJF:
		kind = "shorter"
	case PolicyPriority, PolicyFairShare:
		kind = "higher-priority"
	}
	if n == 1 {
		return fmt.Sprintf("behind 1 %s job", kind)
	}
	return fmt.Sprintf("behind %d %s jobs", n, kind)
}

// reservedWords explains a job that fits now but would delay the head.
func (p *pass) reservedWords(h *head) string {
	if h.words == "" {
		h.words = fmt.Sprintf("would delay the next job's reserved start at %s", instant(p.abs(h.t)))
	}
	return h.words
}

// preemptingWords explains the head while its victims stop: "lower-priority"
// jobs (the priority rule), "checkpointing" ones (LAS demotion), or both.
func (p *pass) preemptingWords(head *Job, victims, waits []int32) string {
	if len(victims) == 0 {
		return p.stoppingWords(waits)
	}
	ids := make([]string, len(victims))
	byPrio := 0
	for i, v := range victims {
		r := p.running[v].job
		ids[i] = fmt.Sprint(r.ID)
		if r.Preemptible && r.Priority < head.Priority {
			byPrio++
		}
	}
	noun := "jobs"
	if len(victims) == 1 {
		noun = "job"
	}
	kind := "" // some of each
	switch byPrio {
	case len(victims):
		kind = "lower-priority "
	case 0: // LAS demotion (demotable)
		kind = "checkpointing "
	}
	return fmt.Sprintf("stopping %d %s%s (%s) to free GPUs for it; starts once they stop",
		len(victims), kind, noun, strings.Join(ids, ", "))
}

// stoppingWords says that the head waits for jobs already stopping.
func (p *pass) stoppingWords(waits []int32) string {
	ids := make([]string, len(waits))
	for i, v := range waits {
		ids[i] = fmt.Sprint(p.running[v].job.ID)
	}
	if len(waits) == 1 {
		return fmt.Sprintf("waiting for job %s to stop and free its GPUs; starts once it has", ids[0])
	}
	return fmt.Sprintf("waiting for %d jobs (%s) to stop and free their GPUs; starts once they have", len(waits), strings.Join(ids, ", "))
}

// countGPUs words a number of GPUs: "1 GPU", "8 GPUs".
func countGPUs(n int) string {
	if n == 1 {
		return "1 GPU"
	}
	return fmt.Sprintf("%d GPUs", n)
}

// instant writes t for a sentence in RFC 3339 UTC; the core knows no
// reader's zone, so the pages and the API word it for each reader
// (localtime.Instants).
func instant(t time.Time) string { return t.UTC().Format(time.RFC3339) }
