//go:build cgo

package gpu

import (
	"context"
	"math"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Schedulable implements MIGManager: each GPU outside MIG mode whole, and
// the MIG devices of each GPU in MIG mode, read now.
func (n *NVML) Schedulable(context.Context) ([]Device, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []Device
	for i, d := range n.handles {
		if !migOn(d) {
			out = append(out, n.devices[i])
			continue
		}
		devs, _, err := n.migDevicesOf(i)
		if err != nil {
			return nil, err
		}
		out = append(out, devs...)
	}
	return out, nil
}

// SampleMIG implements MIGManager: each MIG device's memory and processes
// (NVML names the GPU and compute instance of each process on the parent;
// where the parent lists none, each slice's own handle is asked),
// with its parent's utilization where NVML gives it, temperature, power
// and health.
func (n *NVML) SampleMIG(context.Context) ([]Sample, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []Sample
	for i, d := range n.handles {
		if !migOn(d) {
			continue
		}
		devs, handles, err := n.migDevicesOf(i)
		if err != nil {
			return nil, err
		}
		parent := Sample{NoUtilization: true}
		if u, ret := d.GetUtilizationRates(); ret == nvml.SUCCESS {
			parent.UtilizationPct, parent.NoUtilization = int(min(u.Gpu, 100)), false
		}
		if t, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
			parent.TemperatureC = int(t)
		}
		if p, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
			parent.PowerW = int(p / 1000)
		}
		if p, ret := d.GetEnforcedPowerLimit(); ret == nvml.SUCCESS {
			parent.PowerLimitW = int(p / 1000)
		}
		parent.Health, parent.HealthReason = health(d)
		procs, ret := d.GetComputeRunningProcesses()
		if ret != nvml.SUCCESS {
			procs = nil
		}
		for k, dev := range devs {
			s := parent
			s.UUID = dev.UUID
			if m, ret := handles[k].GetMemoryInfo(); ret == nvml.SUCCESS {
				s.MemoryUsedMiB = int64(m.Used >> 20)
			}
			mine := procs
			if len(procs) == 0 { // some drivers tell a slice's processes only on its own handle
				mine, _ = handles[k].GetComputeRunningProcesses()
			}
			for _, p := range mine {
				if len(procs) == 0 || int(p.GpuInstanceId) == dev.MIG.GPUInstanceID && int(p.ComputeInstanceId) == dev.MIG.ComputeInstanceID {
					s.Processes = append(s.Processes, n.process(p))
				}
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// process describes one NVML process with its owner from /proc.
func (n *NVML) process(p nvml.ProcessInfo) Process {
	pid := int(p.Pid)
	owner, err := n.procs.Owner(pid)
	if err != nil {
		owner = "?" // in another PID namespace, or gone meanwhile
	}
	used := int64(p.UsedGpuMemory >> 20)
	if p.UsedGpuMemory == math.MaxUint64 {
		used = 0 // NVML_VALUE_NOT_AVAILABLE: not told to this user, or in MIG mode
	}
	return Process{PID: pid, User: owner, Name: n.procs.Name(pid), MemoryMiB: used}
}
