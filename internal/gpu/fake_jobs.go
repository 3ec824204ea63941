package gpu

import (
	"maps"
	"slices"
	"sort"
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
	for i, j := range jobs {
		procs[i] = Process{PID: j.pid, User: j.user, Name: j.name, MemoryMiB: used / int64(len(jobs))}
	}
	return Sample{UUID: d.UUID, UtilizationPct: util, MemoryUsedMiB: used, Processes: procs,
		TemperatureC: 31 + util*42/100 + f.rng.IntN(3), PowerW: 69 + util*59/10 + f.rng.IntN(12), PowerLimitW: 700, Health: "ok"}
}
