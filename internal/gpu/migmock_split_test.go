//go:build cgo

package gpu

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

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
