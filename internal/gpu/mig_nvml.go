//go:build cgo

package gpu

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// profileFromInfo turns NVML's description of the GPU-instance profile
// asked for as id into a Profile, named against the GPU's memory.
func profileFromInfo(id int, info nvml.GpuInstanceProfileInfo, placements []nvml.GpuInstancePlacement, totalMiB int64) Profile {
	p := Profile{ID: id, NVMLID: int(info.Id), Slices: int(info.SliceCount), MemoryMiB: int64(info.MemorySizeMB),
		Instances: int(info.InstanceCount), SMs: int(info.MultiprocessorCount)}
	p.Name = profileName(p.Slices, p.MemoryMiB, totalMiB, profileSuffix(id))
	for _, pl := range placements {
		p.Placements = append(p.Placements, Placement{Start: int(pl.Start), Size: int(pl.Size)})
	}
	return p
}

// profileSuffix is the variant a profile's name ends with, as nvidia-smi
// prints it: media extensions (+me), graphics (+gfx), none of them (-me).
func profileSuffix(id int) string {
	switch id {
	case nvml.GPU_INSTANCE_PROFILE_1_SLICE_REV1, nvml.GPU_INSTANCE_PROFILE_2_SLICE_REV1:
		return "+me"
	case nvml.GPU_INSTANCE_PROFILE_1_SLICE_GFX, nvml.GPU_INSTANCE_PROFILE_2_SLICE_GFX,
		nvml.GPU_INSTANCE_PROFILE_3_SLICE_GFX, nvml.GPU_INSTANCE_PROFILE_4_SLICE_GFX:
		return "+gfx"
	case nvml.GPU_INSTANCE_PROFILE_1_SLICE_NO_ME, nvml.GPU_INSTANCE_PROFILE_2_SLICE_NO_ME:
		return "-me"
	case nvml.GPU_INSTANCE_PROFILE_1_SLICE_ALL_ME, nvml.GPU_INSTANCE_PROFILE_2_SLICE_ALL_ME:
		return "+me.all"
	}
	return ""
}

// readProfiles lists the GPU-instance profiles d offers (none when it has
// no MIG, or its driver tells them only in MIG mode).
func readProfiles(d nvml.Device, totalMiB int64) []Profile {
	var out []Profile
	for id := range nvml.GPU_INSTANCE_PROFILE_COUNT {
		info, ret := d.GetGpuInstanceProfileInfo(id)
		if ret != nvml.SUCCESS || info.SliceCount == 0 || info.InstanceCount == 0 {
			continue
		}
		placements, ret := d.GetGpuInstancePossiblePlacements(&info)
		if ret != nvml.SUCCESS {
			placements = nil
		}
		out = append(out, profileFromInfo(id, info, placements, totalMiB))
	}
	return out
}

// profilesOf returns GPU i's profiles, read once they can be read.
func (n *NVML) profilesOf(i int) []Profile {
	if p, ok := n.profiles[i]; ok {
		return p
	}
	p := readProfiles(n.handles[i], n.devices[i].MemoryMiB)
	if len(p) > 0 {
		if n.profiles == nil {
			n.profiles = map[int][]Profile{}
		}
		n.profiles[i] = p
	}
	return p
}

// migOn reports whether d is in MIG mode now.
func migOn(d nvml.Device) bool {
	cur, _, ret := d.GetMigMode()
	return ret == nvml.SUCCESS && cur == nvml.DEVICE_MIG_ENABLE
}

// migDevicesOf lists the MIG devices of GPU i (in MIG mode) by placement,
// with their NVML handles.
func (n *NVML) migDevicesOf(i int) ([]Device, []nvml.Device, error) {
	d, parent := n.handles[i], n.devices[i]
	profiles := n.profilesOf(i)
	byID := map[int]Profile{}
	for _, p := range profiles {
		byID[p.NVMLID] = p
	}
	count, ret := d.GetMaxMigDeviceCount()
	if ret != nvml.SUCCESS {
		return nil, nil, fmt.Errorf("gpu: MIG devices of GPU %d: %s", parent.Index, ret.Error())
	}
	var devs []Device
	var handles []nvml.Device
	for k := range count {
		m, ret := d.GetMigDeviceHandleByIndex(k)
		if ret == nvml.ERROR_NOT_FOUND || ret == nvml.ERROR_INVALID_ARGUMENT {
			continue // an empty slot
		}
		if ret != nvml.SUCCESS {
			return nil, nil, fmt.Errorf("gpu: MIG device %d of GPU %d: %s", k, parent.Index, ret.Error())
		}
		dev, err := readMIGDevice(parent, d, m, byID, maxSlices(profiles))
		if err != nil {
			return nil, nil, fmt.Errorf("gpu: MIG device %d of GPU %d: %w", k, parent.Index, err)
		}
		devs = append(devs, dev)
		handles = append(handles, m)
	}
	order := make([]int, len(devs))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(devs[a].MIG.Start, devs[b].MIG.Start), cmp.Compare(devs[a].MIG.GPUInstanceID, devs[b].MIG.GPUInstanceID),
			cmp.Compare(devs[a].MIG.ComputeInstanceID, devs[b].MIG.ComputeInstanceID))
	})
	sortedDevs, sortedHandles := make([]Device, len(devs)), make([]nvml.Device, len(devs))
	for k, o := range order {
		sortedDevs[k], sortedHandles[k] = devs[o], handles[o]
	}
	return sortedDevs, sortedHandles, nil
}

// readMIGDevice reads MIG device m of parent d: UUID, memory, and its GPU
// and compute instances' profiles.
func readMIGDevice(parent Device, d, m nvml.Device, profiles map[int]Profile, parentSlices int) (Device, error) {
	uuid, ret := m.GetUUID()
	if ret != nvml.SUCCESS {
		return Device{}, fmt.Errorf("UUID: %s", ret.Error())
	}
	mem, ret := m.GetMemoryInfo()
	if ret != nvml.SUCCESS {
		return Device{}, fmt.Errorf("memory of %s: %s", uuid, ret.Error())
	}
	giID, ret := m.GetGpuInstanceId()
	if ret != nvml.SUCCESS {
		return Device{}, fmt.Errorf("GPU instance of %s: %s", uuid, ret.Error())
	}
	ciID, ret := m.GetComputeInstanceId()
	if ret != nvml.SUCCESS {
		return Device{}, fmt.Errorf("compute instance of %s: %s", uuid, ret.Error())
	}
	gi, ret := d.GetGpuInstanceById(giID)
	if ret != nvml.SUCCESS {
		return Device{}, fmt.Errorf("GPU instance %d of %s: %s", giID, uuid, ret.Error())
	}
	giInfo, ret := gi.GetInfo()
	if ret != nvml.SUCCESS {
		return Device{}, fmt.Errorf("GPU instance %d of %s: %s", giID, uuid, ret.Error())
	}
	p, ok := profiles[int(giInfo.ProfileId)]
	if !ok {
		return Device{}, fmt.Errorf("%s: its GPU instance has profile %d, which the GPU does not list", uuid, giInfo.ProfileId)
	}
	ciSlices := p.Slices
	if ci, ret := gi.GetComputeInstanceById(ciID); ret == nvml.SUCCESS {
		if ciInfo, ret := ci.GetInfo(); ret == nvml.SUCCESS {
			ciSlices = cmp.Or(computeSlices(gi, ciInfo.ProfileId), p.Slices)
		}
	}
	return Device{
		Index: parent.Index, UUID: uuid, Model: parent.Model, MemoryMiB: int64(mem.Total >> 20),
		MIG: &MIGSlice{ParentUUID: parent.UUID, Profile: deviceProfile(ciSlices, p), Slices: ciSlices, ParentSlices: parentSlices,
			GPUInstanceID: giID, ComputeInstanceID: ciID, Start: int(giInfo.Placement.Start)},
	}, nil
}

// computeSlices is the slice count of gi's compute-instance profile that
// NVML names nvmlID (0: unknown).
func computeSlices(gi nvml.GpuInstance, nvmlID uint32) int {
	for id := range nvml.COMPUTE_INSTANCE_PROFILE_COUNT {
		info, ret := gi.GetComputeInstanceProfileInfo(id, nvml.COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
		if ret == nvml.SUCCESS && info.Id == nvmlID {
			return int(info.SliceCount)
		}
	}
	return 0
}
