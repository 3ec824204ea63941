//go:build cgo

package gpu

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
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

// split makes the MIG devices of GPU i by hand, as an admin with
// nvidia-smi would: MIG mode on, then per GPU-instance profile enum and
// placement start a GPU instance, and in it compute instances of the
// compute-profile enums given (none: one spanning it).
func (m *migMock) split(t *testing.T, i int, gis ...giSpec) {
	t.Helper()
	d := m.Devices[i]
	if ret, _ := d.SetMigMode(nvml.DEVICE_MIG_ENABLE); ret != nvml.SUCCESS {
		t.Fatalf("GPU %d: MIG mode: %v", i, ret)
	}
	for _, s := range gis {
		info, ret := d.GetGpuInstanceProfileInfo(s.profile)
		if ret != nvml.SUCCESS {
			t.Fatalf("GPU %d: profile %d: %v", i, s.profile, ret)
		}
		gi, ret := d.CreateGpuInstanceWithPlacement(&info, &nvml.GpuInstancePlacement{Start: uint32(s.start), Size: info.SliceCount})
		if ret != nvml.SUCCESS {
			t.Fatalf("GPU %d: instance of profile %d at %d: %v", i, s.profile, s.start, ret)
		}
		cis := s.cis
		if len(cis) == 0 {
			cis = []int{fullCI[int(info.SliceCount)]}
		}
		for _, c := range cis {
			ciInfo, ret := gi.GetComputeInstanceProfileInfo(c, nvml.COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
			if ret != nvml.SUCCESS {
				t.Fatalf("GPU %d: compute profile %d: %v", i, c, ret)
			}
			if _, ret := gi.CreateComputeInstance(&ciInfo); ret != nvml.SUCCESS {
				t.Fatalf("GPU %d: compute instance %d: %v", i, c, ret)
			}
		}
	}
}

// giSpec is a GPU instance to make by hand.
type giSpec struct {
	profile, start int
	cis            []int
}

// fullCI is the compute-instance profile enum of each slice count.
var fullCI = map[int]int{
	1: nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE, 2: nvml.COMPUTE_INSTANCE_PROFILE_2_SLICE, 3: nvml.COMPUTE_INSTANCE_PROFILE_3_SLICE,
	4: nvml.COMPUTE_INSTANCE_PROFILE_4_SLICE, 7: nvml.COMPUTE_INSTANCE_PROFILE_7_SLICE,
}

// setProcs puts processes on GPU i.
func (m *migMock) setProcs(i int, procs ...nvml.ProcessInfo) {
	g := m.gpus[i]
	g.mu.Lock()
	defer g.mu.Unlock()
	g.procs = procs
}

// setUsed sets the memory used on the MIG device with uuid.
func (m *migMock) setUsed(uuid string, mib uint64) {
	for _, g := range m.gpus {
		g.mu.Lock()
		for _, h := range g.migs {
			if h.uuid == uuid {
				h.usedMiB = mib
			}
		}
		g.mu.Unlock()
	}
}
