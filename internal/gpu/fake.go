package gpu

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// FakeSpec describes a simulated cluster: Nodes hosts of GPUsPerNode GPUs each.
type FakeSpec struct {
	Nodes       int
	GPUsPerNode int
	Model       string // full model name, e.g. "NVIDIA H100 80GB HBM3"
	MemoryMiB   int64
	// OutsideUse simulates work started outside the scheduler: GPUs turn
	// busy with someone's process now and then. Off, GPUs are idle unless
	// the agent runs something on them.
	OutsideUse bool
	// MIG splits GPUs into MIG devices (see WithMIG); nil: all whole.
	MIG Layout
}

var fakeSpec = regexp.MustCompile(`^(\d+)x(\d+):([A-Za-z0-9]+)-(\d+)GB$`)

// knownModels maps short names to the names and memory NVML reports.
var knownModels = map[string]struct {
	name string
	mib  int64
}{
	"H100-80GB":  {"NVIDIA H100 80GB HBM3", 81559},
	"H200-141GB": {"NVIDIA H200", 143771},
	"A100-80GB":  {"NVIDIA A100-SXM4-80GB", 81920},
	"A100-40GB":  {"NVIDIA A100-SXM4-40GB", 40960},
	"L40S-48GB":  {"NVIDIA L40S", 46068},
}

// ParseFakeSpec reads "NODESxGPUS:MODEL-MEMGB", e.g. "2x8:H100-80GB".
func ParseFakeSpec(s string) (FakeSpec, error) {
	m := fakeSpec.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return FakeSpec{}, fmt.Errorf("gpu: fake spec %q: want NODESxGPUS:MODEL-MEMGB, e.g. 2x8:H100-80GB", s)
	}
	nodes, _ := strconv.Atoi(m[1])
	per, _ := strconv.Atoi(m[2])
	gb, _ := strconv.ParseInt(m[4], 10, 64)
	if nodes < 1 || nodes > 1024 || per < 1 || per > 16 || gb < 1 {
		return FakeSpec{}, fmt.Errorf("gpu: fake spec %q: 1–1024 nodes of 1–16 GPUs with some memory", s)
	}
	spec := FakeSpec{Nodes: nodes, GPUsPerNode: per, Model: "NVIDIA " + m[3], MemoryMiB: gb * 1024}
	if k, ok := knownModels[m[3]+"-"+m[4]+"GB"]; ok {
		spec.Model, spec.MemoryMiB = k.name, k.mib
	}
	return spec, nil
}

// Fake is a simulated host whose telemetry drifts plausibly: each GPU is
// idle or busy for a while, utilization wanders around its target, and
// memory, temperature and power follow utilization.
type Fake struct {
	mu      sync.Mutex
	devices []Device
	state   []fakeState
	rng     *rand.Rand
	outside bool
	jobs    map[int]fakeJob // by pid: what the agent runs here
	procMem map[int]int64   // by pid: GPU memory a test set (SetProcessMemory)

	seed       uint64
	profiles   []Profile // the model's MIG profiles; none without MIG
	layout     Layout    // how the GPUs are split now
	migs       []Device  // the MIG devices, by GPU and placement
	generation int       // splits so far: each gives new UUIDs
}

type fakeState struct {
	target, util float64
	memFrac      float64
	user         string // who runs the simulated process while busy
	pid          int
}

// fakeUsers run the simulated workloads: in a fresh dev cluster some GPUs
// are busy with work started outside the scheduler, as in the spreadsheet days.
var fakeUsers = []string{"ana", "bo", "chen", "dana", "eli", "farah"}

// NewFake returns a simulated host called host with the spec's GPUs. The
// same host name gives the same UUIDs and the same telemetry sequence.
func NewFake(host string, spec FakeSpec) *Fake {
	h := fnv.New64a()
	_, _ = h.Write([]byte(host))
	seed := h.Sum64()
	f := &Fake{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), outside: spec.OutsideUse, jobs: map[int]fakeJob{},
		seed: seed, layout: Layout{}}
	for i := 0; i < spec.GPUsPerNode; i++ {
		group := 0 // one NVSwitch: all GPUs of the host are linked
		f.devices = append(f.devices, Device{
			Index: i, UUID: fmt.Sprintf("GPU-%08x-%04x-4000-8000-%012x", uint32(seed), i, seed>>16&0xffffffffffff),
			Model: spec.Model, MemoryMiB: spec.MemoryMiB, NVLinkGroup: &group,
		})
		f.state = append(f.state, fakeState{})
		f.retarget(i)
	}
	if profiles, err := fakeProfiles(spec.Model); err == nil {
		f.profiles = profiles
	}
	for _, i := range slices.Sorted(maps.Keys(spec.MIG)) {
		if i < len(f.devices) {
			_ = f.splitFake(i, spec.MIG[i]) // WithMIG checked it
		}
	}
	return f
}

func (f *Fake) retarget(i int) {
	s := &f.state[i]
	if !f.outside || f.rng.Float64() < 0.7 {
		// The process exited: the GPU goes quiet at once.
		s.target, s.util, s.memFrac, s.user, s.pid = 0, 0, 0.006, "", 0
		return
	}
	s.target = 55 + f.rng.Float64()*44
	s.memFrac = 0.35 + f.rng.Float64()*0.6
	s.user = fakeUsers[f.rng.IntN(len(fakeUsers))]
	s.pid = 1000 + f.rng.IntN(60000)
}

// Devices implements Provider.
func (f *Fake) Devices(context.Context) ([]Device, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Device(nil), f.devices...), nil
}

// Sample implements Provider: every call advances the simulation one step.
func (f *Fake) Sample(context.Context) ([]Sample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Sample, len(f.devices))
	busy := f.jobLoad()
	for i, d := range f.devices {
		s := &f.state[i]
		if f.rng.Float64() < 0.04 {
			f.retarget(i)
		}
		if _, split := f.layout[d.Index]; split {
			out[i] = f.migParentSample(d)
			continue
		}
		if jobs := busy[d.Index]; len(jobs) > 0 {
			out[i] = f.jobSample(d, jobs)
			continue
		}
		if s.target > 0 {
			s.util += (s.target-s.util)*0.35 + f.rng.NormFloat64()*4
			s.util = min(max(s.util, 1), 100)
		}
		util := int(s.util + 0.5)
		used := int64(float64(d.MemoryMiB)*s.memFrac) + int64(f.rng.IntN(64))
		var procs []Process
		if s.user != "" {
			procs = []Process{{PID: s.pid, User: s.user, Name: "python", MemoryMiB: used - 500}}
		}
		out[i] = Sample{
			UUID: d.UUID, UtilizationPct: util, MemoryUsedMiB: used, Processes: procs,
			TemperatureC: 31 + int(s.util*0.42) + f.rng.IntN(3),
			PowerW:       69 + int(s.util*5.9) + f.rng.IntN(12),
			PowerLimitW:  700,
			Health:       "ok",
		}
	}
	return out, nil
}
