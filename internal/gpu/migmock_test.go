//go:build cgo

package gpu

import (
	"slices"
	"sync"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// migMock is go-nvml's DGX H100 (with telemetry from dgx) and what its MIG
// support lacks, as a real H100 behaves: MIG device handles with MIG-
// UUIDs, GPU instances only at free placements of their profile and only
// in MIG mode, instances looked up by id, destruction refused while
// something is inside, processes named by GPU and compute instance, and no
// utilization in MIG mode.
type migMock struct {
	*server.Server
	gpus []*migGPU
}

// migGPU is one mock GPU's MIG state.
type migGPU struct {
	mu               sync.Mutex
	dev              *server.Device
	current, pending int
	// needsReset makes MIG mode changes wait for a GPU reset.
	needsReset bool
	migs       []*migHandle
	procs      []nvml.ProcessInfo
	// parentHidesProcs makes the parent list no processes: only the
	// slices' own handles tell them, as on some drivers.
	parentHidesProcs bool
}

// migHandle is a MIG device: a compute instance's handle.
type migHandle struct {
	mock.Device
	gi      *server.GpuInstance
	ci      *server.ComputeInstance
	uuid    string
	usedMiB uint64
}

func newMIGMock(t *testing.T) *migMock {
	t.Helper()
	m := &migMock{Server: dgx(nil)}
	for i, nd := range m.Devices {
		g := &migGPU{dev: nd.(*server.Device)}
		m.gpus = append(m.gpus, g)
		g.extend(i)
	}
	return m
}

func (g *migGPU) extend(index int) {
	d := g.dev
	d.GetMigModeFunc = func() (int, int, nvml.Return) {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.current, g.pending, nvml.SUCCESS
	}
	d.SetMigModeFunc = func(mode int) (nvml.Return, nvml.Return) {
		d.RLock()
		instances := len(d.GpuInstances)
		d.RUnlock()
		g.mu.Lock()
		defer g.mu.Unlock()
		if instances > 0 {
			return nvml.ERROR_IN_USE, nvml.ERROR_IN_USE
		}
		g.pending = mode
		if g.needsReset {
			return nvml.ERROR_IN_USE, nvml.SUCCESS
		}
		g.current = mode
		return nvml.SUCCESS, nvml.SUCCESS
	}
	d.CreateGpuInstanceWithPlacementFunc = func(info *nvml.GpuInstanceProfileInfo, at *nvml.GpuInstancePlacement) (nvml.GpuInstance, nvml.Return) {
		return g.createGI(info, at)
	}
	d.CreateGpuInstanceFunc = func(info *nvml.GpuInstanceProfileInfo) (nvml.GpuInstance, nvml.Return) {
		for _, at := range d.Config.MIGProfiles.GpuInstancePlacements[int(info.Id)] {
			if gi, ret := g.createGI(info, &at); ret == nvml.SUCCESS {
				return gi, ret
			}
		}
		return nil, nvml.ERROR_INSUFFICIENT_RESOURCES
	}
	d.GetGpuInstanceByIdFunc = func(id int) (nvml.GpuInstance, nvml.Return) {
		d.RLock()
		defer d.RUnlock()
		for gi := range d.GpuInstances {
			if int(gi.Info.Id) == id {
				return gi, nvml.SUCCESS
			}
		}
		return nil, nvml.ERROR_NOT_FOUND
	}
	d.GetMaxMigDeviceCountFunc = func() (int, nvml.Return) { return 7, nvml.SUCCESS }
	d.GetMigDeviceHandleByIndexFunc = func(k int) (nvml.Device, nvml.Return) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if k < 0 || k >= len(g.migs) {
			return nil, nvml.ERROR_NOT_FOUND
		}
		return g.migs[k], nvml.SUCCESS
	}
	d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.parentHidesProcs {
			return nil, nvml.SUCCESS
		}
		return slices.Clone(g.procs), nvml.SUCCESS
	}
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.current == nvml.DEVICE_MIG_ENABLE {
			return nvml.Utilization{}, nvml.ERROR_NOT_SUPPORTED
		}
		return nvml.Utilization{Gpu: uint32(10 * index)}, nvml.SUCCESS
	}
}
