//go:build cgo

package gpu

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// instance is a GPU instance found on a GPU, with its compute instances.
type instance struct {
	gi      nvml.GpuInstance
	profile Profile
	start   int
	cis     []nvml.ComputeInstance
	// whole is true when it has one compute instance spanning it, as a
	// layout makes it.
	whole bool
}

// instancesOf lists the GPU instances on GPU i by placement.
func (n *NVML) instancesOf(i int) ([]instance, error) {
	d := n.handles[i]
	var out []instance
	for _, p := range n.profilesOf(i) {
		info, ret := d.GetGpuInstanceProfileInfo(p.ID)
		if ret != nvml.SUCCESS {
			continue
		}
		gis, ret := d.GetGpuInstances(&info)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("%s instances: %s", p.Name, ret.Error())
		}
		for _, gi := range gis {
			giInfo, ret := gi.GetInfo()
			if ret != nvml.SUCCESS {
				return nil, fmt.Errorf("a %s instance: %s", p.Name, ret.Error())
			}
			in := instance{gi: gi, profile: p, start: int(giInfo.Placement.Start)}
			full := 0
			for id := range nvml.COMPUTE_INSTANCE_PROFILE_COUNT {
				ciInfo, ret := gi.GetComputeInstanceProfileInfo(id, nvml.COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
				if ret != nvml.SUCCESS {
					continue
				}
				cis, ret := gi.GetComputeInstances(&ciInfo)
				if ret != nvml.SUCCESS {
					continue
				}
				in.cis = append(in.cis, cis...)
				if int(ciInfo.SliceCount) == p.Slices {
					full += len(cis)
				}
			}
			in.whole = full == 1 && len(in.cis) == 1
			out = append(out, in)
		}
	}
	slices.SortFunc(out, func(a, b instance) int { return cmp.Compare(a.start, b.start) })
	return out, nil
}

// ApplyLayout implements MIGManager. A GPU whose MIG devices differ from
// the layout is changed only when no process holds it: MIG mode is turned
// on or off (which may need a GPU reset on some GPUs), its GPU instances
// are destroyed, and the layout's are made, each with one compute
// instance spanning it. Needs root on a real host.
func (n *NVML) ApplyLayout(_ context.Context, l Layout, dryRun bool) ([]LayoutChange, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	byIndex := map[int]int{}
	for i, d := range n.devices {
		byIndex[d.Index] = i
	}
	for idx := range l {
		if _, ok := byIndex[idx]; !ok {
			return nil, fmt.Errorf("gpu: MIG layout names GPU %d; this host has %d GPUs", idx, len(n.devices))
		}
	}
	var changes []LayoutChange
	var errs []error
	for i := range n.handles {
		c := n.applyGPU(i, l[n.devices[i].Index], dryRun)
		if c.Action == LayoutFailed {
			errs = append(errs, fmt.Errorf("GPU %d: %s", c.Index, c.Detail))
		}
		changes = append(changes, c)
	}
	if err := errors.Join(errs...); err != nil {
		return changes, fmt.Errorf("gpu: MIG layout: %w", err)
	}
	return changes, nil
}

// applyGPU brings GPU i to want (nil: whole) and says what it did.
func (n *NVML) applyGPU(i int, want []string, dryRun bool) LayoutChange {
	d, dev := n.handles[i], n.devices[i]
	c := LayoutChange{Index: dev.Index, UUID: dev.UUID, Want: want}
	fail := func(format string, args ...any) LayoutChange {
		c.Action, c.Detail = LayoutFailed, fmt.Sprintf(format, args...)
		return c
	}
	cur, pending, ret := d.GetMigMode()
	if ret != nvml.SUCCESS {
		if want == nil {
			c.Action = LayoutUnchanged
			return c
		}
		return fail("this GPU has no MIG mode (NVML: %s)", ret.Error())
	}
	var have []instance
	whole := true
	if cur == nvml.DEVICE_MIG_ENABLE {
		var err error
		if have, err = n.instancesOf(i); err != nil {
			return fail("reading its MIG devices: %v", err)
		}
		c.Had = []string{}
		for _, in := range have {
			c.Had = append(c.Had, in.profile.Name)
			whole = whole && in.whole
		}
	}
	on := cur == nvml.DEVICE_MIG_ENABLE && pending == nvml.DEVICE_MIG_ENABLE
	off := cur == nvml.DEVICE_MIG_DISABLE && pending == nvml.DEVICE_MIG_DISABLE
	if (want == nil && off) || (want != nil && on && whole && sameDevices(c.Had, want)) {
		c.Action = LayoutUnchanged
		return c
	}
	if want != nil {
		if profiles := n.profilesOf(i); len(profiles) > 0 {
			if _, err := planGPU(profiles, want); err != nil {
				return fail("%v", err)
			}
		}
	}
	if dryRun {
		c.Action = LayoutWouldDo
		return c
	}
	if busy := busyWith(n, d); busy != "" {
		c.Action, c.Detail = LayoutBusy, busy+": the layout is applied when the GPU is free"
		return c
	}
	if err := destroyInstances(have); err != nil {
		return fail("%v", err)
	}
	if want == nil {
		return n.setMIG(c, d, nvml.DEVICE_MIG_DISABLE)
	}
	if !on {
		if c = n.setMIG(c, d, nvml.DEVICE_MIG_ENABLE); c.Action != LayoutApplied {
			return c
		}
	}
	plan, err := planGPU(n.profilesOf(i), want)
	if err != nil {
		if !on { // it was turned on for this layout: leave it as it was
			_, _ = d.SetMigMode(nvml.DEVICE_MIG_DISABLE)
		}
		return fail("%v", err)
	}
	for _, p := range plan {
		if err := makeInstance(d, p); err != nil {
			return fail("%v", err)
		}
	}
	c.Action, c.Detail = LayoutApplied, fmt.Sprintf("made %d MIG devices", len(plan))
	return c
}

// setMIG turns d's MIG mode to mode and says whether it took at once.
func (n *NVML) setMIG(c LayoutChange, d nvml.Device, mode int) LayoutChange {
	word := map[int]string{nvml.DEVICE_MIG_ENABLE: "on", nvml.DEVICE_MIG_DISABLE: "off"}[mode]
	if _, ret := d.SetMigMode(mode); ret != nvml.SUCCESS {
		hint := ""
		if ret == nvml.ERROR_NO_PERMISSION {
			hint = ": run as root"
		}
		c.Action, c.Detail = LayoutFailed, fmt.Sprintf("turning MIG mode %s: %s%s", word, ret.Error(), hint)
		return c
	}
	if cur, _, ret := d.GetMigMode(); ret != nvml.SUCCESS || cur != mode {
		c.Action, c.Detail = LayoutPending, fmt.Sprintf("MIG mode turns %s after a GPU reset: nvidia-smi -r -i %d, then apply the layout again", word, c.Index)
		return c
	}
	c.Action, c.Detail = LayoutApplied, "MIG mode "+word
	return c
}

// busyWith names the processes on d, "" when none.
func busyWith(n *NVML, d nvml.Device) string {
	infos, ret := d.GetComputeRunningProcesses()
	if ret != nvml.SUCCESS || len(infos) == 0 {
		return ""
	}
	var names []string
	for _, info := range infos {
		p := n.process(info)
		names = append(names, fmt.Sprintf("pid %d %s (%s)", p.PID, p.Name, p.User))
	}
	return fmt.Sprintf("%d processes hold it (%s)", len(infos), strings.Join(names, ", "))
}

// destroyInstances destroys the compute instances, then the GPU instances.
func destroyInstances(have []instance) error {
	for _, in := range have {
		for _, ci := range in.cis {
			if ret := ci.Destroy(); ret != nvml.SUCCESS {
				return fmt.Errorf("destroying a compute instance of %s: %s", in.profile.Name, ret.Error())
			}
		}
		if ret := in.gi.Destroy(); ret != nvml.SUCCESS {
			return fmt.Errorf("destroying a %s instance: %s", in.profile.Name, ret.Error())
		}
	}
	return nil
}

// makeInstance creates p's GPU instance at its placement and one compute
// instance spanning it.
func makeInstance(d nvml.Device, p plannedInstance) error {
	info, ret := d.GetGpuInstanceProfileInfo(p.Profile.ID)
	if ret != nvml.SUCCESS {
		return fmt.Errorf("profile %s: %s", p.Profile.Name, ret.Error())
	}
	gi, ret := d.CreateGpuInstanceWithPlacement(&info, &nvml.GpuInstancePlacement{Start: uint32(p.At.Start), Size: uint32(p.At.Size)})
	if ret != nvml.SUCCESS {
		return fmt.Errorf("making a %s instance at slice %d: %s", p.Profile.Name, p.At.Start, ret.Error())
	}
	for id := range nvml.COMPUTE_INSTANCE_PROFILE_COUNT {
		ciInfo, ret := gi.GetComputeInstanceProfileInfo(id, nvml.COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
		if ret != nvml.SUCCESS || int(ciInfo.SliceCount) != p.Profile.Slices {
			continue
		}
		if _, ret := gi.CreateComputeInstance(&ciInfo); ret != nvml.SUCCESS {
			return fmt.Errorf("making the compute instance of a %s instance: %s", p.Profile.Name, ret.Error())
		}
		return nil
	}
	return fmt.Errorf("a %s instance offers no compute instance spanning it", p.Profile.Name)
}

var _ MIGManager = (*NVML)(nil)
