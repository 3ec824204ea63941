package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// pass runs the scheduling core once at t and applies its plan:
// preemptions first (the job stops at once), then starts, then drops the
// jobs the core says no GPU can ever satisfy, and those that wait for a
// job that can no longer complete. It reports whether anything
// was preempted, and fails when the plan contradicts the cluster's state
// (a start on a busy GPU, of a job not pending, or of the wrong size).
// It does not call the core when the queue is empty, nor, under a policy
// without preemption, when no GPU is free: that pass could start nothing.
func (s *simulator) pass(t time.Duration) (preempted bool, err error) {
	if len(s.pending) == 0 || (!s.cfg.Preempts() && !slices.Contains(s.owner[1:], -1)) {
		return false, nil // nothing to start, or nowhere to start it and nothing to stop
	}
	plan := scheduler.Schedule(s.snapshot(t), s.cfg)
	s.res.Passes++
	for _, p := range plan.Preemptions {
		if i, ok := s.index[p.JobID]; ok && s.runs[i].state == stateRunning {
			s.preempt(i, t)
			preempted = true
		}
	}
	s.head = 0
	best := 0
	for _, e := range plan.Pending {
		if s.head == 0 || e.Position < best {
			s.head, best = e.JobID, e.Position
		}
	}
	gone := map[int64]bool{}
	for _, st := range plan.Starts {
		i, ok := s.index[st.JobID]
		if !ok || s.runs[i].state != stateQueued || gone[st.JobID] {
			return false, fmt.Errorf("the plan starts job %d, which is not pending", st.JobID)
		}
		if len(st.GPUIDs) != s.w.Jobs[i].GPUs && s.w.Jobs[i].GPUShare == 0 { // a share takes the slots it needs
			return false, fmt.Errorf("the plan starts job %d on %d GPUs, it asks for %d", st.JobID, len(st.GPUIDs), s.w.Jobs[i].GPUs)
		}
		for _, g := range st.GPUIDs {
			if g < 1 || int(g) >= len(s.owner) || s.owner[g] != -1 {
				return false, fmt.Errorf("the plan starts job %d on GPU %d, which is not free", st.JobID, g)
			}
			s.owner[g] = i // claimed now, so a second start on it is caught
		}
		s.start(i, st.GPUIDs, t)
		gone[st.JobID] = true
		if st.Backfilled {
			s.res.Backfilled++
		}
	}
	for _, e := range plan.Pending {
		if i, ok := s.index[e.JobID]; ok && s.runs[i].state == stateQueued &&
			(e.Code == scheduler.ReasonNoMatchingGPU || e.Code == scheduler.ReasonDependency && s.neverMet(i)) {
			s.drop(i)
			gone[e.JobID] = true
		}
	}
	if len(gone) > 0 {
		s.pending = slices.DeleteFunc(s.pending, func(j scheduler.Job) bool { return gone[j.ID] })
	}
	return preempted, nil
}

// snapshot is the cluster and queue at t as the core reads them: every
// GPU healthy, running jobs with their start and estimate, every user of
// the workload with a share of 1 and their decayed usage.
func (s *simulator) snapshot(t time.Duration) scheduler.Snapshot {
	now := at(t)
	running := make([]scheduler.Job, 0, len(s.running))
	held := map[int64][]scheduler.Held{}
	heldGPUs := s.res.BusyGPUSeconds // released runs, plus the running ones so far
	for _, i := range s.running {
		heldGPUs += s.weight(s.runs[i].gpus) * (t - s.runs[i].start).Seconds()
		j := s.schedJob(i)
		j.StartedAt, j.GPUs = at(s.runs[i].start), slices.Clone(s.runs[i].gpus)
		running = append(running, j)
		held[j.UserID] = append(held[j.UserID], scheduler.Held{UserID: j.UserID, GPUs: len(j.GPUs), Fraction: s.fraction(j.GPUs), Start: j.StartedAt})
	}
	users := make(map[int64]scheduler.Principal, len(s.users))
	for k, u := range s.users {
		users[u] = scheduler.Principal{Name: s.userNames[k], Share: 1, Usage: s.usage.usage(u, now, held[u])}
	}
	return scheduler.Snapshot{
		Now: now, Nodes: slices.Clone(s.nodes), GPUs: slices.Clone(s.gpus),
		Running: running, Pending: s.pendingCopy(), Users: users, Bookings: s.holds.active(t, userNameOf),
		Lost: scheduler.PreemptionLoss{LostGPUSeconds: s.res.LostGPUSeconds, HeldGPUSeconds: heldGPUs,
			CommittedGPUSeconds: max(0, s.committed)},
		Steering: s.steering(),
	}
}

// steering is what the core steers by (steer.go); nil when the workload
// does not steer.
func (s *simulator) steering() []scheduler.SteerCost {
	if s.steer == nil {
		return nil
	}
	return s.steer.steering()
}

// pendingCopy is the queue for a snapshot, copied into a buffer reused from
// pass to pass: the core may reorder its input, the simulator's own queue
// must keep arrival order, and thousands of pending jobs copied anew at
// every pass would keep the garbage collector busy.
func (s *simulator) pendingCopy() []scheduler.Job {
	s.buf = append(s.buf[:0], s.pending...)
	s.refreshWaits(s.buf)
	return s.buf
}
