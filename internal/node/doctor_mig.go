package node

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// migChecks says how the GPUs are split: the MIG layout the agent offers
// (a GPU in MIG mode as its MIG devices, never whole), a GPU in MIG mode
// that offers nothing, and, when the doctor is given the layout wanted,
// what applying it would change on each GPU (a dry run). migOn lists the
// GPUs the driver reports in MIG mode.
func (d *Doctor) migChecks(ctx context.Context, migOn []int) []Check {
	m, ok := d.GPUs.(gpu.MIGManager)
	if !ok {
		if len(migOn) > 0 {
			return []Check{{Status: Warn, Name: "mig", Detail: "MIG mode is on for GPUs " + indexList(migOn) + ", and this provider cannot list MIG devices",
				Fix: "run a gpusched built with cgo (gpusched version: nvml yes)"}}
		}
		return []Check{{Status: OK, Name: "mig", Detail: "MIG mode off on every GPU"}}
	}
	devs, err := m.Schedulable(ctx)
	if err != nil {
		return []Check{{Status: Fail, Name: "mig", Detail: "cannot list the MIG devices: " + err.Error(), Fix: "check nvidia-smi mig -lgi works"}}
	}
	have := gpu.Layout{}
	for _, dev := range devs {
		if dev.MIG != nil {
			have[dev.Index] = append(have[dev.Index], dev.MIG.Profile)
		}
	}
	var empty []int
	for _, i := range migOn {
		if _, ok := have[i]; !ok {
			empty = append(empty, i)
		}
	}
	var out []Check
	switch {
	case len(empty) > 0:
		out = append(out, Check{Status: Warn, Name: "mig", Detail: "GPUs " + indexList(empty) + " are in MIG mode without MIG devices: they offer nothing",
			Fix: "give node doctor the layout wanted (--mig-layout \"gpu N: 7x1g.10gb\") to see what it would make, or turn MIG off (nvidia-smi -i N -mig 0, then reset the GPU)"})
	case len(have) > 0:
		out = append(out, Check{Status: OK, Name: "mig", Detail: fmt.Sprintf("MIG layout %s: %s offered as slices (jobs ask for them by profile, e.g. --gpu-type %s), %s whole",
			have, words.Count(len(devs)-wholeCount(devs), "MIG device"), firstProfile(devs), words.Count(wholeCount(devs), "GPU"))})
	default:
		out = append(out, Check{Status: OK, Name: "mig", Detail: "MIG mode off on every GPU: all offered whole"})
	}
	if d.MIGLayout != nil {
		out = append(out, d.layoutChecks(ctx, m)...)
	}
	return out
}

// layoutChecks is the dry run of the wanted layout: one line per GPU that
// would change, or one that says all match.
func (d *Doctor) layoutChecks(ctx context.Context, m gpu.MIGManager) []Check {
	changes, err := m.ApplyLayout(ctx, d.MIGLayout, true)
	if err != nil && len(changes) == 0 {
		return []Check{{Status: Fail, Name: "mig layout", Detail: err.Error(), Fix: "name only this host's GPUs and profiles they offer (nvidia-smi mig -lgip)"}}
	}
	var out []Check
	for _, c := range changes {
		switch c.Action {
		case gpu.LayoutUnchanged:
			continue
		case gpu.LayoutFailed:
			out = append(out, Check{Status: Fail, Name: "mig layout", Detail: c.String(), Fix: "choose profiles that fit the GPU's seven slices (nvidia-smi mig -lgip)"})
		default:
			out = append(out, Check{Status: Warn, Name: "mig layout", Detail: c.String(),
				Fix: "make it while the GPU is free (nvidia-smi mig -cgi PROFILES -C; a change of MIG mode needs nvidia-smi -r -i N); the agent then offers the new devices"})
		}
	}
	if len(out) == 0 {
		out = append(out, Check{Status: OK, Name: "mig layout", Detail: "the GPUs match the layout " + layoutText(d.MIGLayout)})
	}
	return out
}

// layoutText is a layout as an admin writes it; "every GPU whole" for none.
func layoutText(l gpu.Layout) string {
	if len(l) == 0 {
		return "(every GPU whole)"
	}
	return l.String()
}

// indexList writes GPU indices: "0,2,5".
func indexList(idx []int) string {
	s := make([]string, len(idx))
	for i, n := range idx {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

// wholeCount counts the devices that are whole GPUs.
func wholeCount(devs []gpu.Device) int {
	return len(devs) - len(slices.DeleteFunc(slices.Clone(devs), func(d gpu.Device) bool { return d.MIG == nil }))
}

// firstProfile is the profile of the first MIG device.
func firstProfile(devs []gpu.Device) string {
	for _, d := range devs {
		if d.MIG != nil {
			return d.MIG.Profile
		}
	}
	return ""
}

// declaredLayout takes the MIG layout an admin declared on the server as
// the one the host should have, when --mig-layout gives none: the MIG
// checks then show it against what the GPUs have, GPU by GPU. It says
// what was declared and what the agent last reported.
func (d *Doctor) declaredLayout(ctx context.Context) []Check {
	if d.MIGLayout != nil || d.Client == nil {
		return nil
	}
	self, err := d.Client.NodeSelf(ctx)
	if err != nil || self.MIGLayout == nil {
		return nil // the server checks say why
	}
	l, err := gpu.ParseLayout(*self.MIGLayout)
	if err != nil {
		return []Check{{Status: Fail, Name: "mig layout", Detail: "the layout declared on the server does not parse: " + err.Error(),
			Fix: "declare it again: gpusched mig-layout " + self.Name + ` "gpu 0-3: 7x1g.10gb"`}}
	}
	d.MIGLayout = l
	detail := "declared on the server: " + layoutText(l)
	if self.MIGLayoutReport != "" {
		detail += "; the agent last reported: " + self.MIGLayoutReport
	}
	return []Check{{Status: OK, Name: "mig layout", Detail: detail}}
}
