package gpu

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Workloads is implemented by providers whose telemetry the agent drives
// (the fake): the agent says what it started on which GPUs, so that those
// GPUs show load and the process, as real ones would.
type Workloads interface {
	// Started says process pid of user (named name) now runs on the GPUs
	// with these indices.
	Started(pid int, user, name string, indices []int)
	// Ended says process pid is gone.
	Ended(pid int)
}

type fakeJob struct {
	pid     int
	user    string
	name    string
	indices []int
	uuids   []string // MIG devices it runs on
	// share is the fraction of its GPU it was given, on slots of a shared
	// GPU ("GPU-…/share-1-of-4" UUIDs); 0: whole GPUs.
	share float64
}

// Started implements Workloads.
func (f *Fake) Started(pid int, user, name string, indices []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobs[pid] = fakeJob{pid: pid, user: user, name: name, indices: append([]int(nil), indices...)}
}

// StartedOn says process pid of user (named name) now runs on the devices
// with these UUIDs: whole GPUs or MIG devices.
func (f *Fake) StartedOn(pid int, user, name string, uuids []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j := fakeJob{pid: pid, user: user, name: name}
	for _, u := range uuids {
		gpuUUID, slot, isSlot := strings.Cut(u, "/")
		if isSlot { // a slot of a shared GPU: the process runs on the GPU
			var k, n int
			if _, err := fmt.Sscanf(slot, "share-%d-of-%d", &k, &n); err == nil && n > 0 {
				j.share += 1 / float64(n)
			}
			if i := slices.IndexFunc(f.devices, func(d Device) bool { return d.UUID == gpuUUID }); i >= 0 && !slices.Contains(j.indices, f.devices[i].Index) {
				j.indices = append(j.indices, f.devices[i].Index)
			}
			continue
		}
		if i := slices.IndexFunc(f.devices, func(d Device) bool { return d.UUID == u }); i >= 0 {
			j.indices = append(j.indices, f.devices[i].Index)
		} else {
			j.uuids = append(j.uuids, u)
		}
	}
	f.jobs[pid] = j
}

// sortedJobs lists the agent's processes by pid.
func (f *Fake) sortedJobs() []fakeJob {
	out := slices.Collect(maps.Values(f.jobs))
	slices.SortFunc(out, func(a, b fakeJob) int { return a.pid - b.pid })
	return out
}

// Ended implements Workloads.
func (f *Fake) Ended(pid int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.jobs, pid)
}

// jobLoad maps GPU index to the agent's processes on it, by pid.
func (f *Fake) jobLoad() map[int][]fakeJob {
	out := map[int][]fakeJob{}
	for _, j := range f.jobs {
		for _, i := range j.indices {
			out[i] = append(out[i], j)
		}
	}
	for _, js := range out {
		sort.Slice(js, func(a, b int) bool { return js[a].pid < js[b].pid })
	}
	return out
}

// jobSample is the telemetry of a GPU the agent runs jobs on: busy, with
// their processes.
func (f *Fake) jobSample(d Device, jobs []fakeJob) Sample {
	util := 88 + f.rng.IntN(12)
	used := int64(float64(d.MemoryMiB)*0.62) + int64(f.rng.IntN(512))
	procs := make([]Process, len(jobs))
	shared := false
	for i, j := range jobs {
		mem := used / int64(len(jobs))
		if j.share > 0 { // on a shared GPU: half its share, unless told
			mem, shared = int64(float64(d.MemoryMiB)*j.share/2), true
		}
		if m, ok := f.procMem[j.pid]; ok {
			mem, shared = m, true
		}
		procs[i] = Process{PID: j.pid, User: j.user, Name: j.name, MemoryMiB: mem}
	}
	if shared {
		used = 0
		for _, p := range procs {
			used += p.MemoryMiB
		}
	}
	return Sample{UUID: d.UUID, UtilizationPct: util, MemoryUsedMiB: used, Processes: procs,
		TemperatureC: 31 + util*42/100 + f.rng.IntN(3), PowerW: 69 + util*59/10 + f.rng.IntN(12), PowerLimitW: 700, Health: "ok"}
}

// SetProcessMemory makes process pid use mib MiB of GPU memory in the
// fake's samples from now on (as NVML reports per process), so tests can
// drive the over-memory watcher; a negative mib forgets it.
func (f *Fake) SetProcessMemory(pid int, mib int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.procMem == nil {
		f.procMem = map[int]int64{}
	}
	if mib < 0 {
		delete(f.procMem, pid)
		return
	}
	f.procMem[pid] = mib
}
