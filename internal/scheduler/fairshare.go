package scheduler

import (
	"maps"
	"math"
	"slices"
	"time"
)

// fairShare returns the multifactor score of the fairshare policy, as in
// Slurm's priority/multifactor plugin:
//
//	score = W_fs·F_fs + W_age·F_age + W_prio·F_prio + W_size·F_size
//
// with every factor in [0, 1]:
//
//   - F_fs = 2^(−U/S) for the user, times the same factor for the team when
//     the job's team is in Snapshot.Teams (the product: a member of a team
//     that used more than its share ranks lower too). U is the principal's
//     Usage over the sum of all principals' usage of that kind (0 when the
//     sum is 0), S its Share over the sum of shares of that kind (Share 0
//     counts as 1). Users are those of Snapshot.Users plus any pending
//     job's user not listed there (share 1, usage 0); teams are those of
//     Snapshot.Teams.
//   - F_age = min(wait/MaxAge, 1).
//   - F_prio = min((Priority−1)/3 + AgingPerHour·hours waited/3, 1): aging
//     adds priority levels, on the same scale as the priority policy, and
//     the factor is capped at 1 (priority is clamped to 1…4 first).
//   - F_size = 1 − GPUCount/largest node's GPU count, clamped to [0, 1]; a
//     share job counts its GPUShare (0.25), as quotas and usage count it.
//
// Every sum runs over sorted keys, so the score is the same however the
// snapshot's maps iterate.
func (p *pass) fairShare(s *Snapshot) func(*Job) float64 {
	users := maps.Clone(s.Users)
	if users == nil {
		users = map[int64]Principal{}
	}
	for i := range s.Pending {
		if _, ok := users[s.Pending[i].UserID]; !ok {
			users[s.Pending[i].UserID] = Principal{}
		}
	}
	capacity := 0.0 // decayed GPU-seconds the cluster could have given
	if p.cfg.FairShare.Entitled {
		usable := 0
		for i := range p.gpus {
			if p.gpus[i].usable {
				usable++
			}
		}
		capacity = float64(usable) * time.Duration(p.cfg.FairShare.HalfLife).Seconds() / math.Ln2
	}
	uf, tf := shareFactors(users, capacity), shareFactors(s.Teams, capacity)
	fs := p.cfg.FairShare
	return func(j *Job) float64 {
		ffs := uf[j.UserID]
		if t, ok := tf[j.TeamID]; ok && j.TeamID != 0 {
			ffs *= t
		}
		wait := max(0, p.now.Sub(j.SubmittedAt))
		age := 1.0
		if fs.MaxAge > 0 {
			age = math.Min(float64(wait)/float64(fs.MaxAge), 1)
		}
		prio := float64(min(max(j.Priority, PriorityLow), PriorityCritical)-1) / 3
		prio = math.Min(prio+p.cfg.AgingPerHour*wait.Hours()/3, 1)
		size := 0.0
		if p.largest > 0 {
			gpus := float64(j.GPUCount)
			if j.GPUShare > 0 { // a share is its fraction of a GPU
				gpus = j.GPUShare
			}
			size = math.Min(math.Max(1-gpus/float64(p.largest), 0), 1)
		}
		return fs.WeightFairShare*ffs + fs.WeightAge*age + fs.WeightPriority*prio + fs.WeightSize*size
	}
}

// shareFactors computes 2^(−U/S) for every principal of one kind. With a
// positive capacity (FairShareConfig.Entitled) U is the usage over that
// capacity, not over the usage of all, and only use beyond the share
// counts: 2^(−max(0, U−S)/S).
func shareFactors(ps map[int64]Principal, capacity float64) map[int64]float64 {
	ids := slices.Sorted(maps.Keys(ps))
	var usage, shares float64
	for _, id := range ids {
		usage += cleanUsage(ps[id].Usage)
		shares += cleanShare(ps[id].Share)
	}
	if capacity > 0 {
		usage = max(usage, capacity)
	}
	out := make(map[int64]float64, len(ids))
	for _, id := range ids {
		u := 0.0
		if usage > 0 {
			u = cleanUsage(ps[id].Usage) / usage
		}
		share := cleanShare(ps[id].Share) / shares
		if capacity > 0 {
			u = max(0, u-share)
		}
		out[id] = math.Exp2(-u / share)
	}
	return out
}

// cleanUsage treats negative and non-finite usage as none.
func cleanUsage(u float64) float64 {
	if u > 0 && !math.IsInf(u, 0) {
		return u
	}
	return 0
}

// cleanShare treats a zero, negative or non-finite share as 1.
func cleanShare(s float64) float64 {
	if s > 0 && !math.IsInf(s, 0) {
		return s
	}
	return 1
}

// DecayedUsage is the GPU-seconds of an interval of use [start, end) of
// gpus GPUs, decayed to now with halfLife: the integral over the interval
// of gpus·2^(−(now−t)/halfLife) dt. An interval still running has end =
// now; the part of an interval after now does not count. A non-positive
// halfLife means no decay (plain GPU-seconds); no GPUs or an empty interval
// give 0. The DB pass and the simulator use it to fill Principal.Usage.
func DecayedUsage(gpus int, start, end, now time.Time, halfLife time.Duration) float64 {
	if end.After(now) {
		end = now
	}
	if gpus <= 0 || !end.After(start) {
		return 0
	}
	g := float64(gpus)
	if halfLife <= 0 {
		return g * end.Sub(start).Seconds()
	}
	// With λ = ln 2 / h, a = now−end and b = now−start (b > a):
	// ∫ = g/λ · (e^(−λa) − e^(−λb)) = −g/λ · e^(−λa) · expm1(−λ(b−a)),
	// which keeps its precision for intervals much shorter than h.
	lambda := math.Ln2 / halfLife.Seconds()
	a, width := now.Sub(end).Seconds(), end.Sub(start).Seconds()
	return -g / lambda * math.Exp(-lambda*a) * math.Expm1(-lambda*width)
}
