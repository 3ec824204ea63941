// Package node is the node agent: it registers a GPU host with the control
// plane, heartbeats its telemetry, long-polls for commands and runs the
// jobs they start (the local executor), and serves the local-scheduler API
// (/status, /jobs, /acquire) on loopback. It only ever calls the server, so
// it works behind NAT.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// Agent reports one host's GPUs to the control plane and runs its jobs.
type Agent struct {
	Client   *apiclient.Client
	GPUs     gpu.Provider
	Hostname string
	// Address is where other nodes reach this one: a multi-node job's
	// MASTER_ADDR when its first part runs here. Empty: the host name.
	Address string
	Version string
	Logger  *slog.Logger
	// Interval between heartbeats when the server does not say otherwise.
	Interval time.Duration
	// StateDir keeps a record of every job the agent runs, its output and
	// exit status, so that a restarted agent finds its jobs again.
	StateDir string
	// StepProgram is the binary that runs a multi-node batch job's steps
	// (the batch script's coordinator on the first node, a worker on each
	// other, srun's multi-node steps) when run as gpusched-step; every
	// job's user must be able to run it. Empty: the agent's own binary.
	StepProgram string
	// UserMap maps job owners' emails to Unix users, over the users' own
	// unix_user; it matters only when the agent runs as root.
	UserMap map[string]string
	// RunAsSelf runs every job as the agent's own user even when it is
	// root: for the simulated nodes of `serve --dev`, where the jobs'
	// owners have no accounts on the machine.
	RunAsSelf bool
	// Procs reads processes; zero: the host's /proc.
	Procs gpu.ProcFS
	// Shared is the admin's sharing of this host's GPUs (index → slots):
	// each is registered as its slots, for share jobs (shared.go). MPS
	// says the host runs the CUDA MPS server: runs on slots are then also
	// given MPS's limits.
	Shared SharedGPUs
	MPS    bool
	// SessionListener, when set, serves interactive sessions: the control
	// plane's signed requests for /s/{job}/ are forwarded to the session
	// server's loopback port. SessionURL is how the control plane reaches
	// it (default: the listener's address).
	SessionListener net.Listener
	SessionURL      string

	nodeID atomic.Int64
	offer  atomic.Pointer[offered] // what the last registration offered
	runs   atomic.Pointer[runner]
	life   atomic.Pointer[context.Context] // Run's: its end stops the watching of leases

	leases   leaseBook    // the leases of local processes (/acquire, adopted)
	memWatch memoryWatch  // share jobs' GPU memory (watch_memory.go)
	leaseMu  sync.RWMutex // held to create a lease (read) and to adopt leases (write)

	sessions sessionBook // the interactive sessions served here
	mig      migState    // the declared MIG layout: the report to send (mig_layout.go)
}

// MaxRetryPause is the longest the agent waits before trying the control
// plane again: short of any sensible NODE_DOWN_AFTER, so that a node is
// back well before the server, returning from an outage, gives up on it.
const MaxRetryPause = 5 * time.Second

// ErrTokenRejected means the server refused the node token: retrying will
// not help until an admin issues a new one.
var ErrTokenRejected = errors.New("node token rejected")

// NodeID returns the control plane's id of this node, 0 before the first
// registration.
func (a *Agent) NodeID() int64 { return a.nodeID.Load() }

// Run registers, heartbeats and carries out commands until ctx ends.
// Network failures and server restarts are retried with backoff; a
// rejected token ends Run. Jobs it started keep running after Run returns;
// the next agent on the same StateDir reattaches to them.
func (a *Agent) Run(ctx context.Context) error {
	a.life.Store(&ctx)
	if a.SessionListener != nil { // before the runner: it serves the sessions it finds again
		a.sessions.ready = a.reportReady(a.sessionURL(a.SessionListener))
		a.sessions.every = a.Interval
	}
	if err := a.startRunner(ctx); err != nil {
		return err
	}
	if a.SessionListener != nil {
		go a.serveSessions(ctx, a.SessionListener)
	}
	backoff := time.Second
	for ctx.Err() == nil {
		err := a.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if api.IsStatus(err, http.StatusUnauthorized) || api.IsStatus(err, http.StatusForbidden) {
			return fmt.Errorf("node: %w: %v", ErrTokenRejected, err)
		}
		if errors.Is(err, errMIGLayoutApplied) { // register the new devices at once
			backoff = time.Second
			continue
		}
		a.Logger.Warn("node agent: lost the control plane; retrying", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, MaxRetryPause)
	}
	return nil
}

func (a *Agent) startRunner(ctx context.Context) error {
	dir := a.StateDir
	if dir == "" {
		d, err := os.MkdirTemp("", "gpusched-node-")
		if err != nil {
			return fmt.Errorf("node: state folder: %w", err)
		}
		dir = d
	}
	// Jobs run as their owners must reach their own exit file in here.
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return fmt.Errorf("node: state folder %s: %w", dir, err)
	}
	procs := a.Procs
	if procs.Root == "" {
		procs = gpu.HostProc
	}
	work, _ := a.GPUs.(gpu.Workloads)
	r := &runner{ctx: ctx, files: runFiles{dir: dir}, procfs: procs, logger: a.Logger, work: work,
		mapping: a.UserMap, asSelf: a.RunAsSelf, report: agentReporter{a}, runs: map[int64]*run{},
		host: a.Hostname, slots: a.offeredSlots, mps: a.MPS, addr: a.Address, sessions: &a.sessions, stepProgram: a.StepProgram}
	a.runs.Store(r)
	return r.reattach()
}

// session registers once, reconciles the node's leases with the host's
// processes, then heartbeats and takes commands until an error or a request
// to register again.
func (a *Agent) session(ctx context.Context) error {
	devs, err := a.schedulable(ctx)
	if err != nil {
		return err
	}
	gpus, off := registration(devs, a.Shared)
	req := api.RegisterNodeRequest{Hostname: a.Hostname, AgentVersion: a.Version, GPUs: gpus}
	reg, err := a.Client.RegisterNode(ctx, req)
	if err != nil {
		return err
	}
	a.nodeID.Store(reg.NodeID)
	a.offer.Store(&off)
	a.Logger.Info("node agent registered", "node", reg.Name, "id", reg.NodeID, "gpus", len(devs))
	if err := a.adoptLeases(ctx, reg.NodeID); err != nil {
		return err
	}
	interval := a.Interval
	if reg.HeartbeatIntervalS > 0 {
		interval = time.Duration(reg.HeartbeatIntervalS) * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 2)
	go func() { errs <- a.heartbeats(ctx, reg.NodeID, interval) }()
	go func() { errs <- a.commands(ctx, reg.NodeID) }()
	err = <-errs
	cancel()
	<-errs
	return err
}

func (a *Agent) heartbeats(ctx context.Context, id int64, interval time.Duration) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		resp, err := a.beat(ctx, id)
		if err != nil {
			return err
		}
		if resp.Reregister {
			return errors.New("server asked to register again")
		}
		if err := a.applyMIGLayout(ctx, resp); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func (a *Agent) beat(ctx context.Context, id int64) (*api.HeartbeatResponse, error) {
	off := a.offer.Load()
	if off == nil {
		return nil, errNotRegistered
	}
	samples, err := a.samples(ctx, *off)
	if err != nil {
		return nil, err
	}
	req := api.HeartbeatRequest{GPUs: heartbeatGPUs(samples), Leases: a.leases.granted(), MIGLayoutReport: a.mig.take()}
	resp, err := a.Client.Heartbeat(ctx, id, req)
	if err != nil {
		return nil, err
	}
	a.leases.endedElsewhere(resp.EndedLeases)
	return resp, nil
}

// runningGPUs returns the GPU indices of the jobs the agent runs now.
func (a *Agent) runningGPUs() []int {
	if r := a.runs.Load(); r != nil {
		return r.gpus()
	}
	return nil
}

// freshen sends a heartbeat at once. Called when a job's process ended and
// before its release is reported, so that the control plane sees its GPUs
// without that process when the release commits — otherwise they would
// look in use outside the scheduler until the next regular heartbeat.
func (a *Agent) freshen(ctx context.Context) {
	id := a.NodeID()
	if id == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := a.beat(ctx, id); err != nil {
		a.Logger.Debug("node: immediate heartbeat failed; the regular one follows", "err", err)
	}
}
