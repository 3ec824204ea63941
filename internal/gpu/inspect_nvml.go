//go:build cgo

package gpu

import (
	"context"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Inspect implements Inspector through NVML. Readings a GPU does not
// support stay unknown (nil or zero).
func (n *NVML) Inspect(context.Context) (HostReport, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var rep HostReport
	if v, ret := n.lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		rep.DriverVersion = v
	}
	if v, ret := n.lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		rep.CUDAVersion = fmt.Sprintf("%d.%d", v/1000, (v%1000)/10)
	}
	for i, d := range n.handles {
		g := GPUReport{Index: n.devices[i].Index, UUID: n.devices[i].UUID, Model: n.devices[i].Model}
		t, ret := d.GetTemperature(nvml.TEMPERATURE_GPU)
		if ret == nvml.ERROR_GPU_IS_LOST {
			g.Lost = true
			rep.GPUs = append(rep.GPUs, g)
			continue
		}
		g.TemperatureC = int(t)
		if v, ret := d.GetTemperatureThreshold(nvml.TEMPERATURE_THRESHOLD_SLOWDOWN); ret == nvml.SUCCESS {
			g.SlowdownC = int(v)
		}
		if cur, _, ret := d.GetEccMode(); ret == nvml.SUCCESS {
			on := cur == nvml.FEATURE_ENABLED
			g.ECCEnabled = &on
		}
		if v, ret := d.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_UNCORRECTED, nvml.VOLATILE_ECC); ret == nvml.SUCCESS {
			g.ECCUncorrected = v
		}
		if _, _, pending, failed, ret := d.GetRemappedRows(); ret == nvml.SUCCESS {
			g.RetiredPending, g.RetiredFailed = pending, failed
		}
		if p, ret := d.GetRetiredPagesPendingStatus(); ret == nvml.SUCCESS && p == nvml.FEATURE_ENABLED {
			g.RetiredPending = true
		}
		if pages, ret := d.GetRetiredPages(nvml.DOUBLE_BIT_ECC); ret == nvml.SUCCESS {
			g.RetiredPages = len(pages)
		}
		if cur, _, ret := d.GetMigMode(); ret == nvml.SUCCESS {
			on := cur == nvml.DEVICE_MIG_ENABLE
			g.MIG = &on
		}
		if m, ret := d.GetPersistenceMode(); ret == nvml.SUCCESS {
			on := m == nvml.FEATURE_ENABLED
			g.Persistence = &on
		}
		g.Processes = n.processes(d)
		rep.GPUs = append(rep.GPUs, g)
	}
	return rep, nil
}
