package node

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// pidPoll is how often a lease's process is checked; the lease ends within
// about this long of the process's exit.
const pidPoll = 250 * time.Millisecond

// acquire carries out one POST /acquire: it blocks until the control plane
// grants GPUs of this node, or ctx ends (the client disconnected: the
// request is withdrawn), or the process exits while it waits. Once
// granted, the lease ends when the process exits.
func (l *Local) acquire(ctx context.Context, req acquireRequest) (*lease, error) {
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
	pid := *req.PID
	owner, err := l.procs().Owner(pid)
	if err != nil {
		return nil, badRequest("pid: process %d does not exist", pid)
	}
	ls := &lease{Status: leaseQueued, PID: pid, NumGPUs: n, Owner: owner, Submitted: time.Now()}
	if n == 0 {
		ls.ID, ls.Status = l.book.nextLocalID(), leaseRunning
		l.book.add(ls)
		go l.hold(ls)
		return ls, nil
	}
	nodeID := l.Agent.NodeID()
	if nodeID == 0 {
		return nil, &httpError{503, "the node agent has not registered with the control plane yet; try again in a moment"}
	}
	created, err := l.Agent.Client.CreateLease(ctx, nodeID, apiclient.NodeLeaseRequest{PID: pid, UnixUser: owner, GPUCount: n,
		GPUModel: req.GPUType, MemoryGB: req.MemGB, Duration: req.Time, Name: req.Name, Priority: req.Priority})
	if err != nil {
		return nil, fromAPI(err)
	}
	ls.jobID, ls.ID, ls.User = created.JobID, strconv.FormatInt(created.JobID, 10), created.Owner
	l.book.add(ls)
	// Waiting ends when the client goes away or the process exits.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for wctx.Err() == nil && l.procs().Alive(pid) {
			sleep(wctx, pidPoll)
		}
		cancel()
	}()
	cur := created
	for cur.State != apiclient.JobRunning {
		l.book.update(ls, func(x *lease) { x.Position, x.Reason, x.ETA = cur.Position, cur.Reason, cur.EstimatedStart })
		if apiclient.IsTerminal(cur.State) {
			l.finish(ls, leaseCanceled)
			return nil, &httpError{409, fmt.Sprintf("the request for GPUs ended before it got any (%s)", cur.State)}
		}
		next, err := l.Agent.Client.WaitLease(wctx, nodeID, ls.jobID, cur.State, 5*time.Second)
		if wctx.Err() != nil {
			go l.Agent.endLease(ls.jobID, fmt.Sprintf("process %d stopped waiting", pid))
			l.finish(ls, leaseCanceled)
			return nil, wctx.Err()
		}
		if err != nil {
			sleep(wctx, time.Second) // the control plane is away: keep waiting
			continue
		}
		cur = next
	}
	l.book.update(ls, func(x *lease) {
		x.Status, x.GPUs, x.Position, x.Reason, x.ETA = leaseRunning, gpuList(cur.GPUs), nil, "", nil
	})
	if w, ok := l.Agent.GPUs.(gpu.Workloads); ok {
		w.Started(pid, owner, l.procs().Name(pid), cur.GPUs)
	}
	go l.hold(ls)
	return ls, nil
}

// hold waits for a granted lease's process to exit, then ends the lease.
func (l *Local) hold(ls *lease) {
	for l.procs().Alive(ls.PID) {
		time.Sleep(pidPoll)
	}
	if ls.jobID != 0 {
		if w, ok := l.Agent.GPUs.(gpu.Workloads); ok {
			w.Ended(ls.PID)
		}
		l.Agent.freshen(context.Background())
		l.Agent.endLease(ls.jobID, fmt.Sprintf("process %d exited", ls.PID))
	}
	l.finish(ls, leaseDone)
}

func (l *Local) finish(ls *lease, status string) {
	now := time.Now()
	l.book.update(ls, func(x *lease) { x.Status, x.Ended, x.Position, x.Reason, x.ETA = status, &now, nil, "", nil })
}

func (l *Local) gpuCount(ctx context.Context) (int, error) {
	devs, err := l.Agent.GPUs.Devices(ctx)
	if err != nil {
		return 0, &httpError{500, "could not list this node's GPUs: " + err.Error()}
	}
	return len(devs), nil
}

func (l *Local) procs() gpu.ProcFS {
	if l.Agent.Procs.Root != "" {
		return l.Agent.Procs
	}
	return gpu.HostProc
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
