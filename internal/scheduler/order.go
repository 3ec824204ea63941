package scheduler

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// sortKey is a pending job's place in the queue: key ascending (minus the
// score, or the estimate for sjf, or 0 for fcfs), then submission time
// (relative to now, saturating), then ID.
type sortKey struct {
	key float64
	at  int64
	id  int64
	i   int32
}

// qjob is a pending job as the pass orders and places it.
type qjob struct {
	job   *Job
	f     *filter
	dur   int64   // estimated run time, ns
	score float64 // Explanation.Score: higher goes first (sjf: shorter)
}

// queue returns the pending jobs in policy order, which is also the order
// of Plan.Starts and Plan.Pending and gives Explanation.Position:
//
//   - fcfs: SubmittedAt, then ID. Score: hours waited.
//   - priority: Priority + AgingPerHour × hours waited, higher first.
//   - fairshare: the multifactor score of fairshare.go, higher first.
//   - sjf: estimated duration (else DefaultDuration), shorter first.
//     Score: minus the estimate in hours.
//   - las, gittins: promoted jobs first, then Priority, then LAS level
//     (las.go). Score: Priority × (levels + 1) minus that key.
//
// Ties always fall back to SubmittedAt, then ID; no order depends on the
// order of the snapshot's slices. A pending job whose ID is also running,
// or repeats an earlier pending ID, is ignored. An unknown policy orders
// as fcfs.
func (p *pass) queue(s *Snapshot) []*qjob {
	runningIDs := make(map[int64]bool, len(p.running))
	for _, r := range p.running {
		runningIDs[r.job.ID] = true
	}
	js := make([]*Job, 0, len(s.Pending))
	for i := range s.Pending {
		js = append(js, &s.Pending[i])
	}
	slices.SortStableFunc(js, func(a, b *Job) int { return cmp.Compare(a.ID, b.ID) })
	js = slices.CompactFunc(js, func(a, b *Job) bool { return a.ID == b.ID })
	var fs func(*Job) float64
	if p.cfg.Policy == PolicyFairShare {
		fs = p.fairShare(s)
	}
	q := make([]*qjob, 0, len(js))
	backing := make([]qjob, len(js))
	for i, j := range js {
		if runningIDs[j.ID] {
			continue
		}
		qj := &backing[i]
		qj.job, qj.f, qj.dur = j, p.filterForJob(j), int64(p.duration(j))
		waited := max(0, p.now.Sub(j.SubmittedAt)).Hours()
		switch p.cfg.Policy {
		case PolicyPriority:
			qj.score = float64(j.Priority) + p.cfg.AgingPerHour*waited
		case PolicyFairShare:
			qj.score = fs(j)
		case PolicySJF:
			qj.score = -time.Duration(qj.dur).Hours()
		case PolicyLAS, PolicyGittins:
			// Priority classes first: a job of a higher class never waits
			// behind a lower one for attained service (it would only take
			// the GPUs back by preemption once the other had started).
			qj.score = float64(j.Priority)*p.lasSpan() - p.lasKey(j)
		default:
			qj.score = waited
		}
		q = append(q, qj)
	}
	// Sort precomputed keys: the policy's key, then the submission time and ID.
	keys := make([]sortKey, len(q))
	for i, qj := range q {
		k := &keys[i]
		k.at, k.id, k.i = p.rel(qj.job.SubmittedAt), qj.job.ID, int32(i)
		switch p.cfg.Policy {
		case PolicyPriority, PolicyFairShare, PolicyLAS, PolicyGittins:
			k.key = -qj.score
		case PolicySJF:
			k.key = float64(qj.dur)
		}
		if math.IsNaN(k.key) {
			k.key = math.Inf(1)
		}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		switch {
		case a.key != b.key:
			return cmp.Compare(a.key, b.key)
		case a.at != b.at:
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.id, b.id)
	})
	sorted := make([]*qjob, len(q))
	for i, k := range keys {
		sorted[i] = q[k.i]
	}
	return p.zipper(sorted)
}
