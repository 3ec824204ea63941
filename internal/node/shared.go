package node

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// SharedGPUs is an admin's sharing of a host's GPUs: GPU index → how many
// slots it is shared into (time-sliced). The agent registers a shared GPU
// as that many slot devices in its place, each 1/N of the GPU and of its
// memory; only share jobs are placed on slots.
type SharedGPUs map[int]int

// maxSlots is the most slots a GPU is shared into (the server's bound).
const maxSlots = 16

// ParseSharedGPUs reads a sharing as an admin writes it: "0-1:4" (GPUs 0
// and 1, four slots each), "0-3:4;6:2", "all:4". Empty: none.
func ParseSharedGPUs(s string, gpus int) (SharedGPUs, error) {
	out := SharedGPUs{}
	for part := range strings.SplitSeq(s, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		which, n, ok := strings.Cut(part, ":")
		slots, err := strconv.Atoi(strings.TrimSpace(n))
		if !ok || err != nil || slots < 2 || slots > maxSlots {
			return nil, fmt.Errorf("shared GPUs %q: want GPUS:SLOTS with 2–%d slots, e.g. \"0-1:4\"", part, maxSlots)
		}
		lo, hi, err := indexRange(strings.TrimSpace(which), gpus)
		if err != nil {
			return nil, fmt.Errorf("shared GPUs %q: %w", part, err)
		}
		for i := lo; i <= hi; i++ {
			out[i] = slots
		}
	}
	return out, nil
}

// indexRange reads "3", "0-3" or "all" (0 … gpus-1; gpus ≤ 0: unknown,
// every index a host may have).
func indexRange(s string, gpus int) (int, int, error) {
	if s == "all" {
		if gpus <= 0 {
			gpus = 256
		}
		return 0, gpus - 1, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := lo, error(nil)
	if isRange {
		hi, err2 = strconv.Atoi(b)
	}
	if err1 != nil || err2 != nil || lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("%q is not a GPU index or range such as 0-3", s)
	}
	return lo, hi, nil
}

// String writes the sharing as ParseSharedGPUs reads it, by index.
func (s SharedGPUs) String() string {
	var parts []string
	for _, i := range slices.Sorted(maps.Keys(s)) {
		parts = append(parts, fmt.Sprintf("%d:%d", i, s[i]))
	}
	return strings.Join(parts, ";")
}

// slot is one slot of a shared GPU as the agent registered it.
type slot struct {
	parent string // the GPU's UUID
	index  int    // the GPU's index
	n      int    // slots of the GPU
	gpuMiB int64  // the GPU's memory
}

// slotUUID names slot k (0-based) of the GPU parent shared n ways.
func slotUUID(parent string, k, n int) string {
	return fmt.Sprintf("%s/share-%d-of-%d", parent, k+1, n)
}

// shareDevices turns a shared GPU into its slots' registrations.
func shareDevices(d gpu.Device, n int) []api.NodeGPU {
	out := make([]api.NodeGPU, n)
	for k := range n {
		out[k] = api.NodeGPU{Index: d.Index, UUID: slotUUID(d.UUID, k, n), Model: d.Model, MemoryMiB: d.MemoryMiB / int64(n),
			NVLinkGroup: d.NVLinkGroup, Kind: api.KindShare, Share: &api.NodeShare{ParentUUID: d.UUID, Slots: n}}
	}
	return out
}

// shareSamples turns a shared GPU's sample into its slots': each slot
// reports the GPU's telemetry (utilisation and memory are the GPU's), and
// no processes: which slot a process uses is the agent's to know, and the
// over-memory watcher (watch_memory.go) reads them per job.
func shareSamples(s gpu.Sample, uuids []string) []gpu.Sample {
	out := make([]gpu.Sample, len(uuids))
	for i, u := range uuids {
		out[i] = s
		out[i].UUID, out[i].Processes = u, nil
	}
	return out
}

// shareOf is what a run holds of shared GPUs: its slots' GPU, the
// fraction and the memory (MiB) they make; ok false when it holds no slot.
func shareOf(uuids []string, slots map[string]slot) (sl slot, share float64, memMiB int64, ok bool) {
	k := 0
	for _, u := range uuids {
		if s, found := slots[u]; found {
			sl, k = s, k+1
		}
	}
	if k == 0 {
		return slot{}, 0, 0, false
	}
	return sl, float64(k) / float64(sl.n), int64(k) * sl.gpuMiB / int64(sl.n), true
}

// withShareEnv returns s as a run on slots of a shared GPU sees it: its
// GPU once in GPUs (so CUDA_VISIBLE_DEVICES names it once), and, in its
// environment, GPUSCHED_GPU_SHARE (the fraction, "0.25") and
// GPUSCHED_GPU_MEMORY_LIMIT (its slots' memory, "20389M"); with MPS on the
// host also CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and
// CUDA_MPS_PINNED_DEVICE_MEM_LIMIT, which the MPS server enforces. s
// itself is not changed; a run on no slot is s.
func withShareEnv(s *api.StartJob, slots map[string]slot, mps bool) *api.StartJob {
	_, share, mem, ok := shareOf(s.GPUUUIDs, slots)
	if !ok {
		return s
	}
	out := *s
	out.GPUs = slices.Compact(slices.Sorted(slices.Values(s.GPUs)))
	out.Env = maps.Clone(s.Env)
	if out.Env == nil {
		out.Env = map[string]string{}
	}
	out.Env["GPUSCHED_GPU_SHARE"] = strconv.FormatFloat(share, 'g', 4, 64)
	out.Env["GPUSCHED_GPU_MEMORY_LIMIT"] = fmt.Sprintf("%dM", mem)
	if mps {
		out.Env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] = strconv.Itoa(cmp.Or(int(share*100+0.5), 1))
		out.Env["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"] = fmt.Sprintf("0=%dM", mem)
	}
	return &out
}

// offeredSlots is the slots of the last registration (nil before one).
func (a *Agent) offeredSlots() map[string]slot {
	if off := a.offer.Load(); off != nil {
		return off.slots
	}
	return nil
}
