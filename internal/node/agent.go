// Package node is the node agent: it registers a GPU host with the control
// plane and heartbeats its telemetry. It only ever calls the server, so it
// works behind NAT.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// Agent reports one host's GPUs to the control plane.
type Agent struct {
	Client   *apiclient.Client
	GPUs     gpu.Provider
	Hostname string
	Version  string
	Logger   *slog.Logger
	// Interval between heartbeats when the server does not say otherwise.
	Interval time.Duration
}

// ErrTokenRejected means the server refused the node token: retrying will
// not help until an admin issues a new one.
var ErrTokenRejected = errors.New("node token rejected")

// Run registers and heartbeats until ctx ends. Network failures and server
// restarts are retried with backoff; a rejected token ends Run.
func (a *Agent) Run(ctx context.Context) error {
	backoff := time.Second
	for ctx.Err() == nil {
		err := a.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if apiclient.IsStatus(err, http.StatusUnauthorized) || apiclient.IsStatus(err, http.StatusForbidden) {
			return fmt.Errorf("node: %w: %v", ErrTokenRejected, err)
		}
		a.Logger.Warn("node agent: lost the control plane; retrying", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 30*time.Second)
	}
	return nil
}

// session registers once and heartbeats until an error or a request to
// register again.
func (a *Agent) session(ctx context.Context) error {
	devs, err := a.GPUs.Devices(ctx)
	if err != nil {
		return fmt.Errorf("node: list GPUs: %w", err)
	}
	req := apiclient.RegisterNodeRequest{Hostname: a.Hostname, AgentVersion: a.Version, GPUs: make([]apiclient.NodeGPU, len(devs))}
	for i, d := range devs {
		req.GPUs[i] = apiclient.NodeGPU{Index: d.Index, UUID: d.UUID, Model: d.Model, MemoryMiB: d.MemoryMiB, NVLinkGroup: d.NVLinkGroup}
	}
	reg, err := a.Client.RegisterNode(ctx, req)
	if err != nil {
		return err
	}
	a.Logger.Info("node agent registered", "node", reg.Name, "id", reg.NodeID, "gpus", len(devs))
	interval := a.Interval
	if reg.HeartbeatIntervalS > 0 {
		interval = time.Duration(reg.HeartbeatIntervalS) * time.Second
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		resp, err := a.beat(ctx, reg.NodeID)
		if err != nil {
			return err
		}
		if resp.Reregister {
			return errors.New("server asked to register again")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

func (a *Agent) beat(ctx context.Context, id int64) (*apiclient.HeartbeatResponse, error) {
	samples, err := a.GPUs.Sample(ctx)
	if err != nil {
		return nil, fmt.Errorf("node: sample GPUs: %w", err)
	}
	req := apiclient.HeartbeatRequest{GPUs: make([]apiclient.GPUSample, len(samples))}
	for i, s := range samples {
		procs := make([]apiclient.GPUProcess, len(s.Processes))
		for j, p := range s.Processes {
			procs[j] = apiclient.GPUProcess{PID: p.PID, User: p.User, Name: p.Name, MemoryMiB: p.MemoryMiB}
		}
		req.GPUs[i] = apiclient.GPUSample{UUID: s.UUID, UtilizationPct: s.UtilizationPct, MemoryUsedMiB: s.MemoryUsedMiB,
			TemperatureC: s.TemperatureC, PowerW: s.PowerW, PowerLimitW: s.PowerLimitW, Health: s.Health,
			HealthReason: s.HealthReason, Processes: procs}
	}
	return a.Client.Heartbeat(ctx, id, req)
}
