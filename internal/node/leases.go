package node

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Lease statuses as /jobs shows them.
const (
	leaseQueued   = api.LocalQueued
	leaseRunning  = api.LocalRunning
	leaseDone     = api.LocalDone
	leaseCanceled = api.LocalCanceled
)

// lease is one /acquire: a local process waiting for, or holding, GPUs of
// this node (what /jobs shows), with what the agent keeps to itself.
type lease struct {
	api.LocalLease

	jobID int64
	start uint64 // the process's start time (clock ticks since boot): it, not a later one with its PID
}

// httpError is an answer of the local API: status and sentence.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// leaseBook keeps this agent's leases: for /jobs and /status, and the
// granted ones its heartbeats renew.
type leaseBook struct {
	mu     sync.Mutex
	leases []*lease
	local  int // ids of GPU-less leases
}

func (b *leaseBook) add(l *lease) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.leases = append(b.leases, l)
	if n := len(b.leases); n > 500 { // forget the oldest ended ones
		kept := b.leases[:0]
		for i, x := range b.leases {
			if x.Ended == nil || i >= n-200 {
				kept = append(kept, x)
			}
		}
		b.leases = kept
	}
}

func (b *leaseBook) update(l *lease, fn func(*lease)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fn(l)
}

// snapshot returns copies of every lease, oldest first.
func (b *leaseBook) snapshot() []lease {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]lease, len(b.leases))
	for i, l := range b.leases {
		out[i] = *l
	}
	return out
}

// has reports whether the book holds lease job id, waiting or granted.
func (b *leaseBook) has(id int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, l := range b.leases {
		if l.jobID == id && l.Ended == nil {
			return true
		}
	}
	return false
}

// granted returns the job ids of the granted leases whose processes the
// agent watches: what its heartbeat renews.
func (b *leaseBook) granted() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []int64
	for _, l := range b.leases {
		if l.jobID != 0 && l.Status == leaseRunning {
			out = append(out, l.jobID)
		}
	}
	return out
}

// over reports whether lease l ended (its process exited, or the control
// plane ended it).
func (b *leaseBook) over(l *lease) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return l.Ended != nil
}

// finish marks lease l ended with status, unless it ended already.
func (b *leaseBook) finish(l *lease, status string) {
	now := time.Now()
	b.update(l, func(x *lease) {
		if x.Ended == nil {
			x.Status, x.Ended, x.Position, x.Reason, x.ETA = status, &now, nil, "", nil
		}
	})
}

// endedElsewhere marks the granted leases ids ended: the control plane no
// longer grants them (released, expired, lost with the node). Their
// processes are watched on only to tell the GPU provider when they exit.
func (b *leaseBook) endedElsewhere(ids []int64) {
	if len(ids) == 0 {
		return
	}
	b.mu.Lock()
	var ended []*lease
	for _, l := range b.leases {
		if l.jobID != 0 && l.Ended == nil && slices.Contains(ids, l.jobID) {
			ended = append(ended, l)
		}
	}
	b.mu.Unlock()
	for _, l := range ended {
		b.finish(l, leaseDone)
	}
}

func (b *leaseBook) nextLocalID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.local++
	return "local-" + strconv.Itoa(b.local)
}

// fromAPI turns a control-plane error into the local API's answer.
func fromAPI(err error) error {
	var e *api.Error
	if errors.As(err, &e) && e.Status < 500 {
		return &httpError{e.Status, e.Message}
	}
	return &httpError{http.StatusBadGateway, "the control plane did not answer: " + err.Error()}
}

// gpuList renders GPU indices as CUDA_VISIBLE_DEVICES does: "0,3".
func gpuList(idx []int) string {
	s := make([]string, len(idx))
	for i, g := range idx {
		s[i] = strconv.Itoa(g)
	}
	return strings.Join(s, ",")
}

// endLease tells the control plane a lease is over, retrying for a while:
// its GPUs must not stay held by a process that is gone.
func (a *Agent) endLease(jobID int64, reason string) {
	backoff := 250 * time.Millisecond
	for try := 0; try < 12; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := a.Client.EndLease(ctx, a.NodeID(), jobID, reason)
		cancel()
		if err == nil || api.IsStatus(err, http.StatusNotFound) {
			return
		}
		a.Logger.Warn("node: could not end a lease; retrying", "job", jobID, "err", err)
		time.Sleep(backoff)
		backoff = min(backoff*2, 10*time.Second)
	}
}
