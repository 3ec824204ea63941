package node

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// pidPoll is how often a lease's process is checked; the lease ends within
// about this long of the process's exit.
const pidPoll = 250 * time.Millisecond

// acquire carries out one POST /acquire: it blocks until the control plane
// grants GPUs of this node, or ctx ends (the client disconnected: the
// request is withdrawn), or the process exits while it waits. Once
// granted, the agent watches the process (watchLease) and the lease ends
// when it exits. The lease records the process (PID and start time), so
// that an agent started after this one finds it (adoptLeases).
func (l *Local) acquire(ctx context.Context, req api.AcquireRequest) (*lease, error) {
	if req.PID == nil || *req.PID <= 0 {
		return nil, badRequest("pid: required, the id of the process that will use the GPUs")
	}
	n := 1
	if req.NumGPUs != nil {
		n = *req.NumGPUs
	}
	total, err := l.gpuCount(ctx)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > total {
		return nil, badRequest("num_gpus: must be between 0 and %d (this node's GPUs), got %d", total, n)
	}
	a := l.Agent
	pid := *req.PID
	owner, err := a.procs().Owner(pid)
	if err != nil {
		return nil, badRequest("pid: process %d does not exist", pid)
	}
	start, err := a.procs().StartTime(pid)
	if err != nil {
		return nil, badRequest("pid: process %d does not exist", pid)
	}
	ls := &lease{LocalLease: api.LocalLease{Status: leaseQueued, PID: pid, NumGPUs: n, Owner: owner, Submitted: time.Now()}, start: start}
	if n == 0 {
		ls.ID, ls.Status = a.leases.nextLocalID(), leaseRunning
		a.leases.add(ls)
		go a.watchLease(ls)
		return ls, nil
	}
	lr := api.NodeLeaseRequest{PID: pid, PIDStart: start, UnixUser: owner, GPUCount: n, GPUModel: req.GPUType, MemoryGB: req.MemGB, Name: req.Name}
	if req.Priority != "" {
		if lr.Priority, err = api.ParsePriority(req.Priority); err != nil {
			return nil, badRequest("priority: %v", err)
		}
	}
	if req.Time != "" {
		if lr.Duration, err = api.ParseSeconds(req.Time); err != nil {
			return nil, badRequest("time: %v", err)
		}
	}
	nodeID := a.NodeID()
	if nodeID == 0 {
		return nil, &httpError{503, "the node agent has not registered with the control plane yet; try again in a moment"}
	}
	created, err := a.createLease(ctx, nodeID, ls, lr)
	if err != nil {
		return nil, fromAPI(err)
	}
	// Waiting ends when the client goes away, the process exits or the
	// agent stops.
	stopping := a.stopping()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer cancel()
		for a.sameProcess(pid, start) {
			select {
			case <-wctx.Done():
				return
			case <-stopping:
				return
			case <-time.After(pidPoll):
			}
		}
	}()
	cur := created
	for cur.State != api.JobRunning {
		a.leases.update(ls, func(x *lease) { x.Position, x.Reason, x.ETA = cur.Position, cur.Reason, cur.EstimatedStart })
		if api.IsTerminal(cur.State) {
			a.leases.finish(ls, leaseCanceled)
			return nil, &httpError{409, fmt.Sprintf("the request for GPUs ended before it got any (%s)", cur.State)}
		}
		next, err := a.Client.WaitLease(wctx, nodeID, ls.jobID, cur.State, 5*time.Second)
		if wctx.Err() != nil {
			a.leases.finish(ls, leaseCanceled)
			if closed(stopping) { // the next agent finds the request and withdraws it
				return nil, &httpError{503, "the node agent is stopping; ask again once it is back"}
			}
			go a.endLease(ls.jobID, fmt.Sprintf("process %d stopped waiting", pid))
			return nil, wctx.Err()
		}
		if err != nil {
			sleep(wctx, time.Second) // the control plane is away: keep waiting
			continue
		}
		cur = next
	}
	a.leases.update(ls, func(x *lease) {
		x.Status, x.GPUs, x.Position, x.Reason, x.ETA = leaseRunning, visibleDevices(cur.GPUs, cur.GPUUUIDs), nil, "", nil
	})
	a.leaseStarted(pid, owner, cur.GPUs, cur.GPUUUIDs)
	go a.watchLease(ls)
	return ls, nil
}

// createLease asks the control plane for lease ls and books it. It holds
// off adoptLeases meanwhile, which would otherwise take the new lease for
// one an earlier agent left.
func (a *Agent) createLease(ctx context.Context, nodeID int64, ls *lease, req api.NodeLeaseRequest) (*api.NodeLease, error) {
	a.leaseMu.RLock()
	defer a.leaseMu.RUnlock()
	created, err := a.Client.CreateLease(ctx, nodeID, req)
	if err != nil {
		return nil, err
	}
	ls.jobID, ls.ID, ls.User = created.JobID, strconv.FormatInt(created.JobID, 10), created.Owner
	a.leases.add(ls)
	return created, nil
}

// leaseStarted tells a simulated provider that a lease's process runs on
// its GPUs (by UUID on MIG devices, which share their parent's index).
func (a *Agent) leaseStarted(pid int, owner string, idx []int, uuids []string) {
	if on, ok := a.GPUs.(startedOn); ok && onMIG(uuids) {
		on.StartedOn(pid, owner, a.procs().Name(pid), uuids)
	} else if w, ok := a.GPUs.(gpu.Workloads); ok {
		w.Started(pid, owner, a.procs().Name(pid), idx)
	}
}

// gpuCount is how many devices the node offers: whole GPUs and MIG devices.
func (l *Local) gpuCount(ctx context.Context) (int, error) {
	devs, err := l.Agent.schedulable(ctx)
	if err != nil {
		return 0, &httpError{500, "could not list this node's GPUs: " + err.Error()}
	}
	return len(devs), nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// closed reports whether ch is closed (a nil channel never is).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
