package node

import (
	"context"
	"sync"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// memoryWatch is the over-memory watcher: at every heartbeat's sample it
// reads, per run on slots of a shared GPU, the GPU memory of the run's
// processes (those of its process group, as NVML lists them on the GPU)
// against its share, and reports the runs over it, and those back under,
// to the control plane, whose policy (gpu_memory_overrun) warns the owner
// and then stops the job through the normal stop path. Reports go out from
// a goroutine of their own, never holding up a heartbeat; a report that
// finds the last one still in flight is dropped (the next sample repeats it).
type memoryWatch struct {
	once sync.Once
	ch   chan []api.MemoryReading
	mu   sync.Mutex
	over map[int64]bool // jobs over their share at the last sample
}

// watchMemory reads the share runs' memory from the shared GPUs' samples
// (whole: the provider's samples of whole GPUs) and queues a report.
func (a *Agent) watchMemory(whole []gpu.Sample, off offered) {
	r := a.runs.Load()
	if len(off.shared) == 0 || r == nil {
		return
	}
	procs := map[string][]gpu.Process{}
	for _, s := range whole {
		if len(off.shared[s.UUID]) > 0 {
			procs[s.UUID] = s.Processes
		}
	}
	readings := r.shareReadings(procs, off.slots)
	w := &a.memWatch
	w.mu.Lock()
	var send []api.MemoryReading
	now := map[int64]bool{}
	for _, rd := range readings {
		over := rd.UsedMiB > rd.LimitMiB
		if over || w.over[rd.JobID] {
			send = append(send, rd)
		}
		if over {
			now[rd.JobID] = true
		}
	}
	w.over = now
	w.mu.Unlock()
	if len(send) == 0 {
		return
	}
	w.once.Do(func() {
		w.ch = make(chan []api.MemoryReading, 1)
		ctx := context.Background()
		if c := a.life.Load(); c != nil {
			ctx = *c
		}
		go a.reportMemory(ctx, w.ch)
	})
	select {
	case w.ch <- send:
	default:
	}
}

// reportMemory sends the watcher's reports until ctx ends.
func (a *Agent) reportMemory(ctx context.Context, ch <-chan []api.MemoryReading) {
	for {
		select {
		case <-ctx.Done():
			return
		case rs := <-ch:
			out, err := a.Client.ReportMemory(ctx, a.NodeID(), api.MemoryReadingsRequest{Readings: rs})
			if err != nil {
				a.Logger.Warn("node: could not report share jobs' GPU memory", "err", err)
				continue
			}
			for _, act := range out.Actions {
				if act.Action == api.MemoryWarned || act.Action == api.MemoryStopped {
					a.Logger.Warn("node: share job over its GPU memory", "job", act.JobID, "action", act.Action)
				}
			}
		}
	}
}

// shareReadings measures every run on slots of a shared GPU: the memory
// its processes use on that GPU (procs, by the GPU's UUID) against its
// share's.
func (r *runner) shareReadings(procs map[string][]gpu.Process, slots map[string]slot) []api.MemoryReading {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []api.MemoryReading
	for _, rn := range r.runs {
		sl, _, limit, ok := shareOf(rn.rec.UUIDs, slots)
		if !ok || rn.rec.PID <= 0 {
			continue
		}
		used := int64(0)
		for _, p := range procs[sl.parent] {
			if p.PID == rn.rec.PID {
				used += p.MemoryMiB
				continue
			}
			if g, err := r.procfs.Group(p.PID); err == nil && g == rn.rec.PID {
				used += p.MemoryMiB
			}
		}
		out = append(out, api.MemoryReading{JobID: rn.rec.JobID, UsedMiB: used, LimitMiB: limit})
	}
	return out
}
