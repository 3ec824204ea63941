//go:build cgo

package gpu

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// createGI makes a GPU instance where a real GPU would accept one.
func (g *migGPU) createGI(info *nvml.GpuInstanceProfileInfo, at *nvml.GpuInstancePlacement) (nvml.GpuInstance, nvml.Return) {
	d := g.dev
	g.mu.Lock()
	on := g.current == nvml.DEVICE_MIG_ENABLE
	g.mu.Unlock()
	if !on {
		return nil, nvml.ERROR_NOT_SUPPORTED
	}
	if !slices.Contains(d.Config.MIGProfiles.GpuInstancePlacements[int(info.Id)], *at) {
		return nil, nvml.ERROR_INVALID_ARGUMENT
	}
	d.Lock()
	defer d.Unlock()
	same := 0
	for gi := range d.GpuInstances {
		p := gi.Info.Placement
		if p.Start < at.Start+at.Size && at.Start < p.Start+p.Size {
			return nil, nvml.ERROR_INSUFFICIENT_RESOURCES
		}
		if gi.Info.ProfileId == info.Id {
			same++
		}
	}
	if same >= int(info.InstanceCount) {
		return nil, nvml.ERROR_INSUFFICIENT_RESOURCES
	}
	gi := dgxh100.NewGpuInstance(nvml.GpuInstanceInfo{Device: d, Id: d.GpuInstanceCounter + 1, ProfileId: info.Id, Placement: *at})
	d.GpuInstanceCounter++
	d.GpuInstances[gi] = struct{}{}
	g.extendGI(gi)
	return gi, nvml.SUCCESS
}

// extendGI adds lookups by id, refuses destruction while compute instances
// live, and makes a MIG device of each compute instance.
func (g *migGPU) extendGI(gi *server.GpuInstance) {
	gi.GetComputeInstanceByIdFunc = func(id int) (nvml.ComputeInstance, nvml.Return) {
		gi.RLock()
		defer gi.RUnlock()
		for ci := range gi.ComputeInstances {
			if int(ci.Info.Id) == id {
				return ci, nvml.SUCCESS
			}
		}
		return nil, nvml.ERROR_NOT_FOUND
	}
	destroy := gi.DestroyFunc
	gi.DestroyFunc = func() nvml.Return {
		gi.RLock()
		n := len(gi.ComputeInstances)
		gi.RUnlock()
		if n > 0 {
			return nvml.ERROR_IN_USE
		}
		return destroy()
	}
	create := gi.CreateComputeInstanceFunc
	gi.CreateComputeInstanceFunc = func(info *nvml.ComputeInstanceProfileInfo) (nvml.ComputeInstance, nvml.Return) {
		giSlices := gi.MIGProfiles.GpuInstanceProfiles[int(gi.Info.ProfileId)].SliceCount
		used := uint32(0)
		gi.RLock()
		for ci := range gi.ComputeInstances {
			used += gi.MIGProfiles.ComputeInstanceProfiles[int(gi.Info.ProfileId)][int(ci.Info.ProfileId)].SliceCount
		}
		gi.RUnlock()
		if used+info.SliceCount > giSlices {
			return nil, nvml.ERROR_INSUFFICIENT_RESOURCES
		}
		ci, ret := create(info)
		if ret != nvml.SUCCESS {
			return ci, ret
		}
		sci := ci.(*server.ComputeInstance)
		sci.Info.Id++ // NVML's compute instance ids need not start at 0
		g.addMIG(gi, sci)
		return ci, ret
	}
}

// addMIG makes the MIG device of compute instance ci.
func (g *migGPU) addMIG(gi *server.GpuInstance, ci *server.ComputeInstance) {
	mem := gi.MIGProfiles.GpuInstanceProfiles[int(gi.Info.ProfileId)].MemorySizeMB
	h := &migHandle{gi: gi, ci: ci,
		uuid: fmt.Sprintf("MIG-%s-%02d%02d", g.dev.UUID[4:], gi.Info.Id, ci.Info.Id)}
	h.GetUUIDFunc = func() (string, nvml.Return) { return h.uuid, nvml.SUCCESS }
	h.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
		g.mu.Lock()
		defer g.mu.Unlock()
		return nvml.Memory{Total: mem << 20, Used: h.usedMiB << 20, Free: (mem - h.usedMiB) << 20}, nvml.SUCCESS
	}
	h.GetGpuInstanceIdFunc = func() (int, nvml.Return) { return int(gi.Info.Id), nvml.SUCCESS }
	h.GetComputeInstanceIdFunc = func() (int, nvml.Return) { return int(ci.Info.Id), nvml.SUCCESS }
	h.IsMigDeviceHandleFunc = func() (bool, nvml.Return) { return true, nvml.SUCCESS }
	h.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		g.mu.Lock()
		defer g.mu.Unlock()
		var mine []nvml.ProcessInfo
		for _, p := range g.procs {
			if p.GpuInstanceId == gi.Info.Id && p.ComputeInstanceId == ci.Info.Id {
				mine = append(mine, p)
			}
		}
		return mine, nvml.SUCCESS
	}
	h.GetDeviceHandleFromMigDeviceHandleFunc = func() (nvml.Device, nvml.Return) { return g.dev, nvml.SUCCESS }
	destroy := ci.DestroyFunc
	ci.DestroyFunc = func() nvml.Return {
		g.mu.Lock()
		g.migs = slices.DeleteFunc(g.migs, func(m *migHandle) bool { return m == h })
		g.mu.Unlock()
		return destroy()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.migs = append(g.migs, h)
	// NVML numbers MIG devices by GPU instance, then compute instance.
	slices.SortFunc(g.migs, func(a, b *migHandle) int {
		return cmp.Or(cmp.Compare(a.gi.Info.Id, b.gi.Info.Id), cmp.Compare(a.ci.Info.Id, b.ci.Info.Id))
	})
}
