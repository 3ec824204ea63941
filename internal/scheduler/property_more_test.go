package scheduler

import (
	"slices"
	"time"
)

// checkQuotas: after the plan's starts, no user or team that got a start
// is over its cap. Use counts running jobs' GPUs, started GPUs and each
// active booking's GPUCount less the booked GPUs its owner's jobs hold.
func checkQuotas(t fataler, s Snapshot, c Config, pl Plan) {
	p := newPass(&s, c) // the bookings' GPUs, as the pass pins them
	pending := map[int64]Job{}
	for _, j := range s.Pending {
		pending[j.ID] = j
	}
	userUse, teamUse := map[int64]float64{}, map[int64]float64{}
	owned := map[int64]map[int64]bool{} // user → GPUs their jobs hold after the plan
	hold := func(u int64, gs []int64) {
		if owned[u] == nil {
			owned[u] = map[int64]bool{}
		}
		for _, g := range gs {
			owned[u][g] = true
		}
	}
	for _, r := range s.Running {
		userUse[r.UserID] += quotaCount(s, r, r.GPUs)
		teamUse[r.TeamID] += quotaCount(s, r, r.GPUs)
		hold(r.UserID, r.GPUs)
	}
	startedUsers, startedTeams := map[int64]bool{}, map[int64]bool{}
	for _, st := range pl.Starts {
		j := pending[st.JobID]
		userUse[j.UserID] += quotaCount(s, j, st.GPUIDs)
		teamUse[j.TeamID] += quotaCount(s, j, st.GPUIDs)
		hold(j.UserID, st.GPUIDs)
		startedUsers[j.UserID], startedTeams[j.TeamID] = true, j.TeamID != 0
	}
	for _, bk := range p.bookings {
		if !bk.active {
			continue
		}
		n := bk.b.GPUCount
		for _, gi := range bk.pins {
			if owned[bk.b.UserID][p.gpus[gi].id] {
				n--
			}
		}
		userUse[bk.b.UserID] += float64(max(0, n))
		teamUse[bk.b.TeamID] += float64(max(0, n))
	}
	for u := range startedUsers {
		if limit := s.Users[u].GPUCap; limit > 0 && userUse[u] > float64(limit)+1e-9 {
			t.Fatalf("user %d uses %g GPUs, cap %d", u, userUse[u], limit)
		}
	}
	for tm := range startedTeams {
		if limit := s.Teams[tm].GPUCap; limit > 0 && teamUse[tm] > float64(limit)+1e-9 {
			t.Fatalf("team %d uses %g GPUs, cap %d", tm, teamUse[tm], limit)
		}
	}
}

// checkBookings: no start by another user touches a booking's GPUs during
// its window (by estimate); and, counted without reference to how the pass
// pins bookings, a booking that overlaps no other one keeps at its start as
// many ready GPUs as it had before the plan, up to what it needs.
func checkBookings(t fataler, s Snapshot, c Config, pl Plan) {
	p := newPass(&s, c)
	pending := map[int64]Job{}
	for _, j := range s.Pending {
		pending[j.ID] = j
	}
	for _, bk := range p.bookings {
		for _, st := range pl.Starts {
			j := pending[st.JobID]
			if j.UserID == bk.b.UserID || int64(jobDur(j, c)) <= bk.start {
				continue
			}
			for _, gi := range bk.pins {
				if slices.Contains(st.GPUIDs, p.gpus[gi].id) {
					t.Fatalf("job %d of user %d starts on GPU %d of booking %+v", j.ID, j.UserID, p.gpus[gi].id, *bk.b)
				}
			}
		}
	}
	gs, ns := gpuIndex(s)
	for i, b := range s.Bookings {
		if b.GPUCount < 1 || !b.End.After(b.Start) || !b.End.After(s.Now) ||
			slices.ContainsFunc(s.Bookings, func(o Booking) bool {
				return o.ID != b.ID && o.GPUCount > 0 && o.End.After(o.Start) && o.End.After(s.Now) &&
					o.Start.Before(b.End) && b.Start.Before(o.End)
			}) || slices.ContainsFunc(s.Bookings[:i], func(o Booking) bool { return o.ID == b.ID }) {
			continue
		}
		tau := laterOf(s.Now, b.Start)
		ready := map[int64]bool{}
		for id, g := range gs {
			n := ns[g.NodeID]
			if !g.Healthy || g.Drained || g.Foreign || !n.Up || n.Drained ||
				!modelFits(g, b.GPUModel) ||
				(b.NodeID != 0 && g.NodeID != b.NodeID) || (len(b.GPUIDs) > 0 && !slices.Contains(b.GPUIDs, id)) {
				continue
			}
			ready[id] = true
		}
		for _, r := range s.Running {
			end := laterOf(s.Now, r.StartedAt.Add(jobDur(r, c)))
			if r.Stopping { // a stop in flight: its GPUs free within its grace
				end = s.Now.Add(r.StopGrace)
			}
			if r.UserID != b.UserID && (tau.Equal(s.Now) || tau.Before(end)) {
				for _, g := range r.GPUs {
					delete(ready, g)
				}
			}
		}
		before := len(ready)
		for _, st := range pl.Starts {
			j := pending[st.JobID]
			if j.UserID != b.UserID && tau.Before(s.Now.Add(jobDur(j, c))) {
				for _, g := range st.GPUIDs {
					delete(ready, g)
				}
			}
		}
		if len(ready) < min(b.GPUCount, before) {
			t.Fatalf("booking %+v had %d ready GPUs at %v, has %d after the plan", b, before, tau, len(ready))
		}
	}
}

// checkHead: the backfilled starts do not make the head's earliest start
// later than it is without them, and the head's estimated start is that
// earliest start.
func checkHead(t fataler, s Snapshot, c Config, pl Plan) {
	// A preempting head (stopping jobs now, or waiting for jobs already
	// stopping) holds its GPUs from now: the jobs behind it are estimated
	// after it, which this check does not model.
	if len(pl.Preemptions) > 0 || slices.ContainsFunc(pl.Pending, func(e Explanation) bool { return e.Code == ReasonPreempting }) {
		return
	}
	share := map[int64]bool{} // a share job waits on slots and is never the head
	for _, j := range s.Pending {
		share[j.ID] = j.IsShare()
	}
	var head *Explanation
	for i, e := range pl.Pending {
		if (e.Code == ReasonNoCapacity || e.Code == ReasonFragmented || e.Code == ReasonBooked) && !e.EstimatedStart.IsZero() && !share[e.JobID] {
			head = &pl.Pending[i]
			break
		}
	}
	if head == nil {
		return
	}
	var ahead []Start
	for _, st := range pl.Starts {
		if !st.Backfilled {
			ahead = append(ahead, st)
		}
	}
	without := headEarliest(s, c, ahead, head.JobID)
	with := headEarliest(s, c, pl.Starts, head.JobID)
	if with.After(without) {
		t.Fatalf("backfill moves the head %d from %v to %v\nsnapshot %+v\nconfig %+v\nplan %+v", head.JobID, without, with, s, c, pl)
	}
	if !without.Equal(head.EstimatedStart) {
		t.Fatalf("head %d estimated at %v, earliest %v\nsnapshot %+v\nconfig %+v\nplan %+v", head.JobID, head.EstimatedStart, without, s, c, pl)
	}
}

// headEarliest is a job's earliest start in the profile of the snapshot
// with the given starts applied.
func headEarliest(s Snapshot, c Config, starts []Start, id int64) time.Time {
	p := newPass(&s, c)
	jobs := map[int64]*Job{}
	for i := range s.Pending {
		jobs[s.Pending[i].ID] = &s.Pending[i]
	}
	for _, st := range starts {
		var gs []int32
		for _, g := range st.GPUIDs {
			gs = append(gs, p.byID[g])
		}
		slices.Sort(gs)
		p.take(gs)
		p.startSpans = append(p.startSpans, startSpan{gs, int64(p.duration(jobs[st.JobID]))})
	}
	p.ensureProfile()
	j := jobs[id]
	rq := newRequest(&qjob{job: j, f: p.filterFor(j.GPUModel, j.MinMemoryMiB, j.NodeID), dur: int64(p.duration(j))})
	at, gs := p.earliest(&rq, 0)
	if gs == nil {
		return time.Time{}
	}
	return p.abs(at)
}

// laterOf is the later of two instants.
func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
