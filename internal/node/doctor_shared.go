package node

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// sharedChecks says how the GPUs are shared (--shared-gpus): the slots the
// agent offers for share jobs, GPUs named that the host lacks or that are
// in MIG mode (offered as MIG devices, not shared), and, with --mps,
// whether the MPS control daemon's pipe is there.
func (d *Doctor) sharedChecks(devs []gpu.Device, migOn []int) []Check {
	if len(d.Shared) == 0 {
		return []Check{{Status: OK, Name: "shared gpus", Detail: "none shared: share jobs (--gpu-share) need GPUs shared with --shared-gpus"}}
	}
	var offered, problems []string
	for _, i := range slices.Sorted(maps.Keys(d.Shared)) {
		n := d.Shared[i]
		k := slices.IndexFunc(devs, func(g gpu.Device) bool { return g.Index == i })
		switch {
		case k < 0:
			problems = append(problems, fmt.Sprintf("GPU %d is not on this host", i))
		case slices.Contains(migOn, i):
			problems = append(problems, fmt.Sprintf("GPU %d is in MIG mode: offered as its MIG devices, not shared", i))
		default:
			offered = append(offered, fmt.Sprintf("GPU %d: %d slots of %d MiB", i, n, devs[k].MemoryMiB/int64(n)))
		}
	}
	var out []Check
	if len(offered) > 0 {
		mps := "MPS off: GPUSCHED_GPU_MEMORY_LIMIT is the jobs' to keep"
		if d.MPS {
			mps = "MPS on: share jobs get CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"
		}
		out = append(out, Check{Status: OK, Name: "shared gpus", Detail: strings.Join(offered, "; ") + "; " + mps})
	}
	if len(problems) > 0 {
		out = append(out, Check{Status: Warn, Name: "shared gpus", Detail: strings.Join(problems, "; "),
			Fix: "name GPUs of this host outside MIG mode in --shared-gpus (GPUSCHED_NODE_SHARED_GPUS)"})
	}
	if d.MPS {
		pipe := cmp.Or(os.Getenv("CUDA_MPS_PIPE_DIRECTORY"), "/tmp/nvidia-mps")
		if _, err := os.Stat(pipe); err != nil {
			out = append(out, Check{Status: Warn, Name: "mps", Detail: "--mps is set but the MPS control pipe " + pipe + " is missing",
				Fix: "start the MPS control daemon (nvidia-cuda-mps-control -d) or leave out --mps"})
		}
	}
	return out
}
