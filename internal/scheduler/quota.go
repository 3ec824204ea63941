package scheduler

import (
	"cmp"
	"fmt"
	"slices"
)

// account is a user's or team's concurrent GPU use against its cap.
type account struct {
	use      int       // running jobs' GPUs + active bookings not used by the owner's jobs
	releases []release // when use drops, by estimate
}

// release is use that ends at a relative time.
type release struct {
	at int64
	n  int
}

// initQuotas counts every user's and team's concurrent GPUs: the GPUs of
// their running jobs, plus each active booking's GPUCount less the booked
// GPUs the owner's own running jobs already hold (a job started inside a
// booking uses the booking's capacity and is not counted twice).
func (p *pass) initQuotas() {
	p.users, p.teams = map[int64]*account{}, map[int64]*account{}
	for _, r := range p.running {
		n := len(r.job.GPUs)
		if r.job.IsShare() { // its slots are part of one GPU
			n = min(n, 1)
		}
		p.charge(p.users, r.job.UserID, n, r.end)
		if r.job.TeamID != 0 {
			p.charge(p.teams, r.job.TeamID, n, r.end)
		}
	}
	for i := range p.bookings {
		bk := &p.bookings[i]
		if !bk.active {
			continue
		}
		n := max(0, bk.b.GPUCount-bk.ownUsed)
		if bk.b.GPUShare > 0 { // part of one GPU, as a share job counts
			n = max(0, 1-min(bk.ownUsed, 1))
		}
		p.charge(p.users, bk.b.UserID, n, bk.end)
		if bk.b.TeamID != 0 {
			p.charge(p.teams, bk.b.TeamID, n, bk.end)
		}
	}
}

// charge adds n GPUs until a relative time to a principal's account.
func (p *pass) charge(accts map[int64]*account, id int64, n int, until int64) {
	a := accts[id]
	if a == nil {
		a = &account{}
		accts[id] = a
	}
	a.use += n
	a.releases = append(a.releases, release{until, n})
}

// ownFreeBooked counts the free GPUs pinned to user u's active bookings.
func (p *pass) ownFreeBooked(u int64) int {
	n := 0
	for i := range p.bookings {
		if bk := &p.bookings[i]; bk.active && bk.b.UserID == u {
			for _, gi := range bk.pins {
				if p.gpus[gi].free {
					n++
				}
			}
		}
	}
	return n
}

// quotaDelta is how much a start on gs adds to its owner's use: the GPUs
// that are not pinned to the owner's own active bookings.
func (p *pass) quotaDelta(j *Job, gs []int32) int {
	n := 0
	for _, gi := range gs {
		if !p.ownActive(gi, j.UserID) {
			n++
		}
	}
	if j.IsShare() { // its slots are part of one GPU
		n = min(n, 1)
	}
	return n
}

// quotaBlock returns the reason code and sentence when adding delta GPUs
// would take the job's user or team over its cap, else "", "".
func (p *pass) quotaBlock(j *Job, delta int) (string, string) {
	if s := overCap("user", p.users[j.UserID], p.userCap(j), j.GPUCount, delta); s != "" {
		return ReasonUserQuota, s
	}
	if j.TeamID == 0 {
		return "", ""
	}
	if s := overCap("team", p.teams[j.TeamID], p.teamCap(j), j.GPUCount, delta); s != "" {
		return ReasonTeamQuota, s
	}
	return "", ""
}

func (p *pass) userCap(j *Job) int { return p.snap.Users[j.UserID].GPUCap }
func (p *pass) teamCap(j *Job) int { return p.snap.Teams[j.TeamID].GPUCap }

// overCap words a cap that delta more GPUs would exceed; "" when within.
func overCap(kind string, a *account, limit, k, delta int) string {
	use := 0
	if a != nil {
		use = a.use
	}
	switch {
	case limit <= 0 || use+delta <= limit:
		return ""
	case k > limit:
		return fmt.Sprintf("needs %s; the %s quota is %s", countGPUs(k), kind, countGPUs(limit))
	case use >= limit:
		return fmt.Sprintf("%s quota reached %d/%d GPUs", kind, use, limit)
	}
	return fmt.Sprintf("%s quota: %d/%d GPUs in use; this job needs %d more", kind, use, limit, delta)
}

// commitQuota records a start of delta GPUs that runs for d.
func (p *pass) commitQuota(j *Job, delta int, d int64) {
	p.charge(p.users, j.UserID, delta, d)
	if j.TeamID != 0 {
		p.charge(p.teams, j.TeamID, delta, d)
	}
}

// quotaReady is the earliest relative time at which the job's user and
// team have room for all its GPUs, by the estimated ends of their running
// jobs, of this pass's starts and of their active bookings (it ignores
// reservations of other waiting jobs of theirs); forever when never.
func (p *pass) quotaReady(j *Job) int64 {
	t := readyAt(p.users[j.UserID], p.userCap(j), j.GPUCount)
	if j.TeamID != 0 {
		t = max(t, readyAt(p.teams[j.TeamID], p.teamCap(j), j.GPUCount))
	}
	return t
}

// readyAt walks an account's releases until k more GPUs fit under limit.
func readyAt(a *account, limit, k int) int64 {
	if limit <= 0 || a == nil || a.use+k <= limit {
		if limit > 0 && k > limit {
			return forever
		}
		return 0
	}
	if k > limit {
		return forever
	}
	rs := slices.Clone(a.releases)
	slices.SortFunc(rs, func(x, y release) int { return cmp.Compare(x.at, y.at) })
	use := a.use
	for _, r := range rs {
		if use -= r.n; use+k <= limit {
			return max(0, r.at)
		}
	}
	return forever
}
