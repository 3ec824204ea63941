package scheduler

import (
	"cmp"
	"fmt"
	"slices"
)

// account is a user's or team's concurrent GPU use against its cap, in
// GPUs: a slot of a shared GPU or a MIG device counts as the part of a GPU
// it is (quota_fraction.go), as usage counts it.
type account struct {
	use      float64   // running jobs' GPUs + active bookings not used by the owner's jobs
	releases []release // when use drops, by estimate
}

// release is use that ends at a relative time.
type release struct {
	at int64
	n  float64
}

// initQuotas counts every user's and team's concurrent GPUs: the GPUs of
// their running jobs, each the part of a GPU it is (heldFraction: a share
// job's slots, a MIG job's slices), plus each active booking's GPUCount
// less the booked GPUs the owner's own running jobs already hold (a job
// started inside a booking uses the booking's capacity and is not counted
// twice).
func (p *pass) initQuotas() {
	p.users, p.teams = map[int64]*account{}, map[int64]*account{}
	for _, r := range p.running {
		n := p.heldFraction(r)
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
		n := float64(max(0, bk.b.GPUCount-bk.ownUsed))
		if bk.b.GPUShare > 0 { // part of one GPU: its fraction, until the booker's jobs use it
			n = 0
			if bk.ownUsed == 0 {
				n = bk.b.GPUShare
			}
		}
		p.charge(p.users, bk.b.UserID, n, bk.end)
		if bk.b.TeamID != 0 {
			p.charge(p.teams, bk.b.TeamID, n, bk.end)
		}
	}
}

// charge adds n GPUs until a relative time to a principal's account.
func (p *pass) charge(accts map[int64]*account, id int64, n float64, until int64) {
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

// quotaDelta is how much a start on gs adds to its owner's use: the parts
// of a GPU (each device's fraction) that are not pinned to the owner's own
// active bookings.
func (p *pass) quotaDelta(j *Job, gs []int32) float64 {
	n := 0.0
	for _, gi := range gs {
		if !p.ownActive(gi, j.UserID) {
			n += p.gpus[gi].frac
		}
	}
	return n
}

// quotaBlock returns the reason code and sentence when adding delta GPUs
// would take the job's user or team over its cap, else "", "". The job
// needs at least quotaNeed of its filter f in all.
func (p *pass) quotaBlock(j *Job, f *filter, delta float64) (string, string) {
	need := p.quotaNeed(j, f)
	if s := overCap("user", p.users[j.UserID], p.userCap(j), need, delta); s != "" {
		return ReasonUserQuota, s
	}
	if j.TeamID == 0 {
		return "", ""
	}
	if s := overCap("team", p.teams[j.TeamID], p.teamCap(j), need, delta); s != "" {
		return ReasonTeamQuota, s
	}
	return "", ""
}

func (p *pass) userCap(j *Job) int { return p.snap.Users[j.UserID].GPUCap }
func (p *pass) teamCap(j *Job) int { return p.snap.Teams[j.TeamID].GPUCap }

// overCap words a cap that delta more GPUs would exceed, for a job that
// needs k in all; "" when within.
func overCap(kind string, a *account, limit int, k, delta float64) string {
	use := 0.0
	if a != nil {
		use = a.use
	}
	switch {
	case limit <= 0 || within(use+delta, limit):
		return ""
	case !within(k, limit):
		return fmt.Sprintf("needs %s; the %s quota is %s", amountGPUs(k), kind, countGPUs(limit))
	case use+quotaEps >= float64(limit):
		return fmt.Sprintf("%s quota reached %s/%d GPUs", kind, amount(use), limit)
	}
	return fmt.Sprintf("%s quota: %s/%d GPUs in use; this job needs %s more", kind, amount(use), limit, amount(delta))
}

// commitQuota records a start of delta GPUs that runs for d.
func (p *pass) commitQuota(j *Job, delta float64, d int64) {
	p.charge(p.users, j.UserID, delta, d)
	if j.TeamID != 0 {
		p.charge(p.teams, j.TeamID, delta, d)
	}
}

// quotaReady is the earliest relative time at which the job's user and
// team have room for all its GPUs, by the estimated ends of their running
// jobs, of this pass's starts and of their active bookings (it ignores
// reservations of other waiting jobs of theirs); forever when never.
func (p *pass) quotaReady(j *Job, f *filter) int64 {
	k := p.quotaNeed(j, f)
	t := readyAt(p.users[j.UserID], p.userCap(j), k)
	if j.TeamID != 0 {
		t = max(t, readyAt(p.teams[j.TeamID], p.teamCap(j), k))
	}
	return t
}

// readyAt walks an account's releases until k more GPUs fit under limit.
func readyAt(a *account, limit int, k float64) int64 {
	if limit <= 0 || a == nil || within(a.use+k, limit) {
		if limit > 0 && !within(k, limit) {
			return forever
		}
		return 0
	}
	if !within(k, limit) {
		return forever
	}
	rs := slices.Clone(a.releases)
	slices.SortFunc(rs, func(x, y release) int { return cmp.Compare(x.at, y.at) })
	use := a.use
	for _, r := range rs {
		if use -= r.n; within(use+k, limit) {
			return max(0, r.at)
		}
	}
	return forever
}
