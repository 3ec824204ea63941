package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// errDevicesChanged ends a session when the host's schedulable devices are
// no longer those registered (a MIG layout was applied, or undone): the
// agent registers again with what it has now.
var errDevicesChanged = errors.New("node: the GPUs' MIG layout changed; registering again")

// offered is what the agent registered: the devices jobs can be given, by
// UUID, and the GPUs in MIG mode or shared whose MIG devices or slots they
// are; slots and shared describe the shared GPUs' slots (shared.go).
type offered struct {
	devices map[string]bool
	parents map[string]bool
	slots   map[string]slot     // slot UUID → its GPU
	shared  map[string][]string // shared GPU's UUID → its slots' UUIDs
}

// schedulable lists what the agent offers: with a provider that knows MIG,
// each GPU outside MIG mode whole and the MIG devices of the others (never
// such a GPU whole); otherwise every GPU.
func (a *Agent) schedulable(ctx context.Context) ([]gpu.Device, error) {
	if m, ok := a.GPUs.(gpu.MIGManager); ok {
		devs, err := m.Schedulable(ctx)
		if err != nil {
			return nil, fmt.Errorf("node: list schedulable GPUs: %w", err)
		}
		return devs, nil
	}
	devs, err := a.GPUs.Devices(ctx)
	if err != nil {
		return nil, fmt.Errorf("node: list GPUs: %w", err)
	}
	return devs, nil
}

// registration turns devices into the registration's GPUs, a GPU shared
// N ways (outside MIG mode) into its N slots, and remembers what they are
// for the heartbeats.
func registration(devs []gpu.Device, shared SharedGPUs) ([]api.NodeGPU, offered) {
	out := make([]api.NodeGPU, 0, len(devs))
	off := offered{devices: map[string]bool{}, parents: map[string]bool{}, slots: map[string]slot{}, shared: map[string][]string{}}
	for _, d := range devs {
		if n := shared[d.Index]; n >= 2 && d.MIG == nil {
			for _, s := range shareDevices(d, n) {
				out = append(out, s)
				off.devices[s.UUID] = true
				off.slots[s.UUID] = slot{parent: d.UUID, index: d.Index, n: n, gpuMiB: d.MemoryMiB}
				off.shared[d.UUID] = append(off.shared[d.UUID], s.UUID)
			}
			off.parents[d.UUID] = true
			continue
		}
		g := api.NodeGPU{Index: d.Index, UUID: d.UUID, Model: d.Model, MemoryMiB: d.MemoryMiB, NVLinkGroup: d.NVLinkGroup,
			Kind: api.KindWhole}
		if d.MIG != nil {
			g.Kind = api.KindMIG
			g.MIG = &api.NodeMIG{ParentUUID: d.MIG.ParentUUID, Profile: d.MIG.Profile, Slices: d.MIG.Slices,
				ParentSlices: d.MIG.ParentSlices}
			off.parents[d.MIG.ParentUUID] = true
		}
		out = append(out, g)
		off.devices[d.UUID] = true
	}
	return out, off
}

// samples reads the telemetry of what was registered: whole GPUs from the
// provider's Sample, MIG devices from its SampleMIG. A device that was not
// registered (a GPU that left MIG mode, a MIG device made since) means the
// layout changed: errDevicesChanged.
func (a *Agent) samples(ctx context.Context, off offered) ([]gpu.Sample, error) {
	whole, err := a.GPUs.Sample(ctx)
	if err != nil {
		return nil, fmt.Errorf("node: sample GPUs: %w", err)
	}
	out := make([]gpu.Sample, 0, len(whole))
	for _, s := range whole {
		switch {
		case off.devices[s.UUID]:
			out = append(out, s)
		case len(off.shared[s.UUID]) > 0:
			out = append(out, shareSamples(s, off.shared[s.UUID])...)
		case !off.parents[s.UUID]:
			return nil, errDevicesChanged
		}
	}
	a.watchMemory(whole, off) // share jobs over their memory (watch_memory.go)
	m, ok := a.GPUs.(gpu.MIGManager)
	if !ok {
		return out, nil
	}
	migs, err := m.SampleMIG(ctx)
	if err != nil {
		return nil, fmt.Errorf("node: sample MIG devices: %w", err)
	}
	for _, s := range migs {
		if !off.devices[s.UUID] {
			return nil, errDevicesChanged
		}
		out = append(out, s)
	}
	return out, nil
}

// heartbeatGPUs turns samples into a heartbeat's GPUs.
func heartbeatGPUs(samples []gpu.Sample) []api.GPUSample {
	out := make([]api.GPUSample, len(samples))
	for i, s := range samples {
		procs := make([]api.GPUProcess, len(s.Processes))
		for j, p := range s.Processes {
			procs[j] = api.GPUProcess{PID: p.PID, User: p.User, Name: p.Name, MemoryMiB: p.MemoryMiB}
		}
		out[i] = api.GPUSample{UUID: s.UUID, UtilizationPct: s.UtilizationPct, MemoryUsedMiB: s.MemoryUsedMiB,
			TemperatureC: s.TemperatureC, PowerW: s.PowerW, PowerLimitW: s.PowerLimitW, Health: s.Health,
			HealthReason: s.HealthReason, Processes: procs}
	}
	return out
}
