package node

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// The agent watches the process of every lease it granted through /acquire:
// its heartbeats name those that still run, which renews them for the
// policy's node_ttl, and the lease ends when the process exits. The
// control plane records each lease's process (PID and start time), so an
// agent that starts after another finds the leases that one left
// (adoptLeases): those whose processes still run are watched again, the
// others are ended. Leases of an agent that never comes back run out after
// node_ttl.

// watchLease waits for lease ls's process to exit, then ends the lease so
// that the control plane frees its GPUs. When the agent stops it stops
// watching and leaves the lease as it is, for the next agent to adopt; a
// lease the control plane ended meanwhile is only marked over here.
func (a *Agent) watchLease(ls *lease) {
	stopping := a.stopping()
	tick := time.NewTicker(pidPoll)
	defer tick.Stop()
	for !closed(stopping) && a.sameProcess(ls.PID, ls.start) {
		select {
		case <-stopping:
		case <-tick.C:
		}
	}
	if closed(stopping) {
		return // the next agent finds the lease and what became of its process
	}
	if ls.jobID != 0 {
		if w, ok := a.GPUs.(gpu.Workloads); ok {
			w.Ended(ls.PID)
		}
		if !a.leases.over(ls) {
			a.freshen(context.Background())
			a.endLease(ls.jobID, fmt.Sprintf("process %d exited", ls.PID))
		}
	}
	a.leases.finish(ls, leaseDone)
}

// adoptLeases reconciles, when the agent registers, this node's leases in
// the control plane with the processes of this host. A granted lease whose
// process still runs (same PID, same start time) and whose client learned
// of the grant is adopted: booked, watched and renewed again. A granted
// lease whose process is gone, or whose client never learned of the grant,
// is ended; a waiting one is withdrawn, since the client that waited for it
// talked to an agent that is gone. Leases this agent knows are left alone.
func (a *Agent) adoptLeases(ctx context.Context, nodeID int64) error {
	type ending struct {
		id  int64
		why string
	}
	var ends []ending
	err := func() error {
		a.leaseMu.Lock() // no lease is being created meanwhile
		defer a.leaseMu.Unlock()
		list, err := a.Client.ListLeases(ctx, nodeID)
		if err != nil {
			return fmt.Errorf("node: list this node's leases: %w", err)
		}
		for _, l := range list {
			switch {
			case a.leases.has(l.JobID): // this agent's own: left alone
			case l.State != api.JobRunning:
				ends = append(ends, ending{l.JobID, "its waiting client is gone: the node agent that took the request stopped"})
			case !l.Confirmed:
				ends = append(ends, ending{l.JobID, "granted while the node agent was away: its client never learned of the grant"})
			case !a.sameProcess(l.PID, l.PIDStart):
				ends = append(ends, ending{l.JobID, fmt.Sprintf("process %d is gone (found when the node agent started)", l.PID)})
			default:
				a.adopt(l)
			}
		}
		return nil
	}()
	if err != nil {
		return err
	}
	for _, e := range ends {
		a.Logger.Info("node: ending a lease an earlier agent left", "job", e.id, "why", e.why)
		go a.endLease(e.id, e.why)
	}
	return nil
}

// adopt books granted lease l, whose process runs, and watches it.
func (a *Agent) adopt(l api.NodeLease) {
	start := l.PIDStart
	if start == 0 { // recorded without one: the process found now is the one from here on
		start, _ = a.procs().StartTime(l.PID)
	}
	owner, _ := a.procs().Owner(l.PID)
	ls := &lease{LocalLease: api.LocalLease{ID: strconv.FormatInt(l.JobID, 10), Status: leaseRunning, GPUs: visibleDevices(l.GPUs, l.GPUUUIDs), PID: l.PID,
		NumGPUs: len(l.GPUs), Owner: owner, User: l.Owner, Submitted: time.Now()}, jobID: l.JobID, start: start}
	a.leases.add(ls)
	a.leaseStarted(l.PID, owner, l.GPUs, l.GPUUUIDs)
	a.Logger.Info("node: adopted a lease whose process still runs", "job", l.JobID, "pid", l.PID, "gpus", ls.GPUs)
	go a.watchLease(ls)
}

// sameProcess reports whether process pid runs and is the one that started
// at start (clock ticks since boot; 0: any process with that PID).
func (a *Agent) sameProcess(pid int, start uint64) bool {
	if pid <= 0 || !a.procs().Alive(pid) {
		return false
	}
	if start == 0 {
		return true
	}
	now, err := a.procs().StartTime(pid)
	return err == nil && now == start
}

func (a *Agent) procs() gpu.ProcFS {
	if a.Procs.Root != "" {
		return a.Procs
	}
	return gpu.HostProc
}

// stopping is closed once the agent's Run ends (never before Run started).
func (a *Agent) stopping() <-chan struct{} {
	if ctx := a.life.Load(); ctx != nil {
		return (*ctx).Done()
	}
	return nil
}
