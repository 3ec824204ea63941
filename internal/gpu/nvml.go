//go:build cgo

package gpu

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// ErrNoNVML means NVML could not be loaded or initialised: no NVIDIA
// driver on this host, or no permission to use it.
var ErrNoNVML = errors.New("NVML is not available")

// NVML reads a host's NVIDIA GPUs through NVML (go-nvml): inventory,
// telemetry, health, NVLink topology and the compute processes on each
// GPU with their owners (from /proc).
type NVML struct {
	lib   nvml.Interface
	procs ProcFS

	mu      sync.Mutex
	handles []nvml.Device
	devices []Device
	// profiles are each MIG-capable GPU's profiles by position, once read.
	profiles map[int][]Profile
}

// NewNVML opens the host's NVML library. Without an NVIDIA driver it
// returns an error wrapping ErrNoNVML that says so.
func NewNVML() (*NVML, error) { return OpenNVML(nvml.New(), HostProc) }

// OpenNVML initialises lib (the real library, or go-nvml's mock in tests)
// and reads the GPUs' inventory once.
func OpenNVML(lib nvml.Interface, procs ProcFS) (*NVML, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("gpu: %w (%s): is the NVIDIA driver installed and usable by this user? Run with --fake-gpus to simulate GPUs", ErrNoNVML, ret.Error())
	}
	n := &NVML{lib: lib, procs: procs}
	if err := n.inventory(); err != nil {
		_ = lib.Shutdown()
		return nil, err
	}
	return n, nil
}

// Close releases NVML.
func (n *NVML) Close() error {
	if ret := n.lib.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("gpu: NVML shutdown: %s", ret.Error())
	}
	return nil
}

func (n *NVML) inventory() error {
	count, ret := n.lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return fmt.Errorf("gpu: count GPUs: %s", ret.Error())
	}
	for i := range count {
		d, ret := n.lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return fmt.Errorf("gpu: GPU %d: %s", i, ret.Error())
		}
		uuid, ret := d.GetUUID()
		if ret != nvml.SUCCESS {
			return fmt.Errorf("gpu: UUID of GPU %d: %s", i, ret.Error())
		}
		name, _ := d.GetName()
		mem, ret := d.GetMemoryInfo()
		if ret != nvml.SUCCESS {
			return fmt.Errorf("gpu: memory of GPU %d: %s", i, ret.Error())
		}
		idx := i
		if v, ret := d.GetIndex(); ret == nvml.SUCCESS {
			idx = v
		}
		n.handles = append(n.handles, d)
		n.devices = append(n.devices, Device{Index: idx, UUID: uuid, Model: name, MemoryMiB: int64(mem.Total >> 20)})
	}
	groups := nvlinkGroups(n.handles)
	for i := range n.devices {
		if groups[i] >= 0 {
			g := groups[i]
			n.devices[i].NVLinkGroup = &g
		}
	}
	return nil
}

// Devices implements Provider.
func (n *NVML) Devices(context.Context) ([]Device, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Device(nil), n.devices...), nil
}

// Sample implements Provider. Readings a GPU does not support are left at
// zero; a GPU that cannot be read at all is reported failed.
func (n *NVML) Sample(context.Context) ([]Sample, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]Sample, len(n.handles))
	for i, d := range n.handles {
		s := Sample{UUID: n.devices[i].UUID, Health: "ok"}
		u, ret := d.GetUtilizationRates()
		switch ret {
		case nvml.SUCCESS:
			s.UtilizationPct = int(min(u.Gpu, 100))
		case nvml.ERROR_GPU_IS_LOST:
			s.Health, s.HealthReason = "failed", "the GPU fell off the bus (NVML: GPU is lost)"
			out[i] = s
			continue
		default:
			s.NoUtilization = true // not given, e.g. in MIG mode
		}
		if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
			s.MemoryUsedMiB = int64(m.Used >> 20)
		}
		if t, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
			s.TemperatureC = int(t)
		}
		if p, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
			s.PowerW = int(p / 1000)
		}
		if p, ret := d.GetEnforcedPowerLimit(); ret == nvml.SUCCESS {
			s.PowerLimitW = int(p / 1000)
		}
		s.Health, s.HealthReason = health(d)
		s.Processes = n.processes(d)
		out[i] = s
	}
	return out, nil
}

// health reads memory errors: rows that could not be remapped fail the
// GPU; a pending remap or uncorrected ECC errors degrade it.
func health(d nvml.Device) (string, string) {
	if _, unc, pending, failed, ret := d.GetRemappedRows(); ret == nvml.SUCCESS {
		switch {
		case failed:
			return "failed", "a memory row could not be remapped: the GPU needs service"
		case pending:
			return "degraded", fmt.Sprintf("%d memory rows wait for remapping: reset the GPU when it is free", unc)
		}
	}
	if n, ret := d.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_UNCORRECTED, nvml.VOLATILE_ECC); ret == nvml.SUCCESS && n > 0 {
		return "degraded", fmt.Sprintf("%d uncorrected ECC errors since the driver loaded", n)
	}
	return "ok", ""
}

// processes lists d's compute processes with their owners.
func (n *NVML) processes(d nvml.Device) []Process {
	infos, ret := d.GetComputeRunningProcesses()
	if ret != nvml.SUCCESS {
		return nil
	}
	out := make([]Process, 0, len(infos))
	for _, p := range infos {
		out = append(out, n.process(p))
	}
	return out
}

// NVMLCompiledIn says whether this binary can read real GPUs through NVML
// (built with cgo).
const NVMLCompiledIn = true
