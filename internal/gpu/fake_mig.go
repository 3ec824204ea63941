package gpu

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// WithMIG returns the spec with its GPUs split as text says, in the form
// of a layout without the word gpu ("0-3:7x1g.10gb", or
// "0-3:7x1g.10gb;4:2x3g.40gb"), checked against the MIG profiles of the
// model's GPU in go-nvml's mock, so names and memory are the real ones.
func (s FakeSpec) WithMIG(text string) (FakeSpec, error) {
	l, err := ParseLayout(text)
	if err != nil {
		return s, err
	}
	profiles, err := fakeProfiles(s.Model)
	if err != nil {
		return s, fmt.Errorf("gpu: fake MIG %q: %w", text, err)
	}
	for i, want := range l {
		if i >= s.GPUsPerNode {
			return s, fmt.Errorf("gpu: fake MIG %q names GPU %d; each node has GPUs 0-%d", text, i, s.GPUsPerNode-1)
		}
		if _, err := planGPU(profiles, want); err != nil {
			return s, fmt.Errorf("gpu: fake MIG %q: GPU %d: %w", text, i, err)
		}
	}
	s.MIG = l
	return s, nil
}

// splitFake makes GPU i's MIG devices as want says (nil: none); the
// layout has been checked. Each split gives new UUIDs, as NVML does.
func (f *Fake) splitFake(i int, want []string) error {
	plan, err := planGPU(f.profiles, want)
	if want != nil && err != nil {
		return err
	}
	f.migs = slices.DeleteFunc(f.migs, func(d Device) bool { return d.Index == i })
	delete(f.layout, i)
	if want == nil {
		return nil
	}
	f.generation++
	parent := f.devices[i]
	slices.SortFunc(plan, func(a, b plannedInstance) int { return a.At.Start - b.At.Start })
	for k, p := range plan {
		f.migs = append(f.migs, Device{
			Index: i, Model: parent.Model, MemoryMiB: p.Profile.MemoryMiB,
			UUID: fmt.Sprintf("MIG-%08x-%04x-%04x-8%03x-%012x", uint32(f.seed>>32), i, f.generation&0xffff, k, f.seed&0xffffffffffff),
			MIG: &MIGSlice{ParentUUID: parent.UUID, Profile: p.Profile.Name, Slices: p.Profile.Slices, ParentSlices: maxSlices(f.profiles),
				GPUInstanceID: k + 1, Start: p.At.Start},
		})
	}
	slices.SortStableFunc(f.migs, func(a, b Device) int { return a.Index - b.Index })
	f.layout[i] = slices.Clone(want)
	return nil
}

// Schedulable implements MIGManager.
func (f *Fake) Schedulable(context.Context) ([]Device, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Device
	for _, d := range f.devices {
		if _, split := f.layout[d.Index]; !split {
			out = append(out, d)
			continue
		}
		for _, m := range f.migs {
			if m.Index == d.Index {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// SampleMIG implements MIGManager: a slice the agent runs jobs on holds
// most of its memory and shows their processes; as on a real GPU in MIG
// mode, there is no utilization.
func (f *Fake) SampleMIG(context.Context) ([]Sample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Sample, 0, len(f.migs))
	for _, m := range f.migs {
		out = append(out, f.migSample(m))
	}
	return out, nil
}

// migSample is one slice's telemetry.
func (f *Fake) migSample(m Device) Sample {
	s := Sample{UUID: m.UUID, NoUtilization: true, MemoryUsedMiB: 12, TemperatureC: 33, PowerW: 90, PowerLimitW: 700, Health: "ok"}
	var jobs []fakeJob
	for _, j := range f.sortedJobs() {
		if slices.Contains(j.uuids, m.UUID) {
			jobs = append(jobs, j)
		}
	}
	if len(jobs) == 0 {
		return s
	}
	s.MemoryUsedMiB = int64(float64(m.MemoryMiB)*0.62) + int64(f.rng.IntN(256))
	for _, j := range jobs {
		s.Processes = append(s.Processes, Process{PID: j.pid, User: j.user, Name: j.name, MemoryMiB: s.MemoryUsedMiB / int64(len(jobs))})
	}
	return s
}

// migParentSample is a GPU in MIG mode as NVML reads the whole of it: the
// memory and processes of its slices, no utilization.
func (f *Fake) migParentSample(d Device) Sample {
	s := Sample{UUID: d.UUID, NoUtilization: true, PowerLimitW: 700, Health: "ok"}
	busy := 0
	for _, m := range f.migs {
		if m.Index != d.Index {
			continue
		}
		ms := f.migSample(m)
		s.MemoryUsedMiB += ms.MemoryUsedMiB
		s.Processes = append(s.Processes, ms.Processes...)
		if len(ms.Processes) > 0 {
			busy += m.MIG.Slices
		}
	}
	s.TemperatureC = 31 + busy*5 + f.rng.IntN(3)
	s.PowerW = 69 + busy*80 + f.rng.IntN(12)
	return s
}

// ApplyLayout implements MIGManager as NVML does, on the simulated GPUs: a
// GPU that runs something is left alone.
func (f *Fake) ApplyLayout(_ context.Context, l Layout, dryRun bool) ([]LayoutChange, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range l {
		if i < 0 || i >= len(f.devices) {
			return nil, fmt.Errorf("gpu: MIG layout names GPU %d; this host has %d GPUs", i, len(f.devices))
		}
	}
	var changes []LayoutChange
	var failed []string
	busy := f.jobLoad()
	for i, d := range f.devices {
		c := LayoutChange{Index: i, UUID: d.UUID, Had: f.layout[i], Want: l[i]}
		switch _, err := planGPU(f.profiles, c.Want); {
		case sameDevices(c.Had, c.Want):
			c.Action = LayoutUnchanged
		case c.Want != nil && err != nil:
			c.Action, c.Detail = LayoutFailed, err.Error()
			failed = append(failed, fmt.Sprintf("GPU %d: %v", i, err))
		case dryRun:
			c.Action = LayoutWouldDo
		case len(busy[i]) > 0 || f.migBusy(i) || (f.state[i].user != "" && c.Had == nil):
			c.Action, c.Detail = LayoutBusy, "processes hold it: the layout is applied when the GPU is free"
		default:
			_ = f.splitFake(i, c.Want)
			c.Action, c.Detail = LayoutApplied, "MIG mode off"
			if c.Want != nil {
				c.Detail = fmt.Sprintf("made %d MIG devices", len(c.Want))
			}
		}
		changes = append(changes, c)
	}
	if len(failed) > 0 {
		return changes, fmt.Errorf("gpu: MIG layout: %s", strings.Join(failed, "; "))
	}
	return changes, nil
}

// migBusy reports whether a job runs on one of GPU i's slices.
func (f *Fake) migBusy(i int) bool {
	for _, j := range f.jobs {
		for _, m := range f.migs {
			if m.Index == i && slices.Contains(j.uuids, m.UUID) {
				return true
			}
		}
	}
	return false
}

var _ MIGManager = (*Fake)(nil)
