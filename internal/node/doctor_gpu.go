package node

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// gpuChecks reads the GPUs: the library, driver and CUDA, each GPU's
// health, MIG and persistence modes, and processes already on them.
func (d *Doctor) gpuChecks(ctx context.Context) []Check {
	if d.GPUs == nil {
		return []Check{{Status: Fail, Name: "nvml", Detail: fmt.Sprint(d.GPUErr),
			Fix: "install the NVIDIA driver (nvidia-smi must work), run a gpusched built with cgo (gpusched version: nvml yes), or try --fake-gpus"}}
	}
	devs, err := d.GPUs.Devices(ctx)
	if err == nil && len(devs) == 0 {
		err = errNoGPUs
	}
	if err != nil {
		return []Check{{Status: Fail, Name: "nvml", Detail: err.Error(), Fix: "check nvidia-smi lists the GPUs; reload the driver or reboot"}}
	}
	out := []Check{{Status: OK, Name: "nvml", Detail: fmt.Sprintf("%s: %s", words.Count(len(devs), "GPU"), devs[0].Model)}}
	insp, ok := d.GPUs.(gpu.Inspector)
	if !ok {
		return append(out, Check{Status: Warn, Name: "driver", Detail: "this provider cannot report the driver"})
	}
	rep, err := insp.Inspect(ctx)
	if err != nil {
		return append(out, Check{Status: Fail, Name: "driver", Detail: err.Error(), Fix: "check nvidia-smi -q works"})
	}
	drv := Check{Status: OK, Name: "driver", Detail: fmt.Sprintf("NVIDIA driver %s, CUDA %s", rep.DriverVersion, rep.CUDAVersion)}
	if rep.DriverVersion == "" {
		drv = Check{Status: Warn, Name: "driver", Detail: "driver version unknown", Fix: "check nvidia-smi works"}
	}
	out = append(out, drv)
	var mig []int
	var noPersist, busy []string
	for _, g := range rep.GPUs {
		out = append(out, gpuHealth(g))
		if g.MIG != nil && *g.MIG {
			mig = append(mig, g.Index)
		}
		if g.Persistence != nil && !*g.Persistence {
			noPersist = append(noPersist, fmt.Sprint(g.Index))
		}
		for _, p := range g.Processes {
			busy = append(busy, fmt.Sprintf("GPU %d: pid %d %s (%s, %d MiB)", g.Index, p.PID, p.Name, p.User, p.MemoryMiB))
		}
	}
	out = append(out, d.migChecks(ctx, mig)...)
	out = append(out, d.sharedChecks(devs, mig)...)
	if len(noPersist) > 0 {
		out = append(out, Check{Status: Warn, Name: "persistence", Detail: "persistence mode off for GPUs " + strings.Join(noPersist, ","),
			Fix: "enable nvidia-persistenced (systemctl enable --now nvidia-persistenced) or nvidia-smi -pm 1, so jobs start fast and the driver stays loaded"})
	} else {
		out = append(out, Check{Status: OK, Name: "persistence", Detail: "persistence mode on"})
	}
	if len(busy) > 0 {
		out = append(out, Check{Status: Warn, Name: "processes", Detail: fmt.Sprintf("%s already hold GPUs: %s", words.Count(len(busy), "process"), strings.Join(busy, "; ")),
			Fix: "stop them or let them finish: the scheduler will see those GPUs as used outside it"})
	} else {
		out = append(out, Check{Status: OK, Name: "processes", Detail: "no process holds a GPU"})
	}
	return out
}

// gpuHealth grades one GPU.
func gpuHealth(g gpu.GPUReport) Check {
	name := fmt.Sprintf("gpu %d", g.Index)
	switch {
	case g.Lost:
		return Check{Status: Fail, Name: name, Detail: g.UUID + " cannot be read (fallen off the bus)", Fix: "reboot the host; if it stays lost, the GPU needs service"}
	case g.RetiredFailed:
		return Check{Status: Fail, Name: name, Detail: g.UUID + ": a memory row could not be remapped", Fix: "drain the node and have the GPU serviced"}
	case g.RetiredPending:
		return Check{Status: Warn, Name: name, Detail: g.UUID + ": retired pages or remapped rows wait for a reset", Fix: fmt.Sprintf("when the GPU is free: nvidia-smi -r -i %d (or reboot)", g.Index)}
	case g.ECCUncorrected > 0:
		return Check{Status: Warn, Name: name, Detail: fmt.Sprintf("%s: %d uncorrected ECC errors since the driver loaded", g.UUID, g.ECCUncorrected),
			Fix: fmt.Sprintf("reset the GPU when free (nvidia-smi -r -i %d); if errors come back, have it serviced", g.Index)}
	case g.SlowdownC > 0 && g.TemperatureC >= g.SlowdownC-5:
		return Check{Status: Warn, Name: name, Detail: fmt.Sprintf("%s at %d°C, throttles at %d°C", g.UUID, g.TemperatureC, g.SlowdownC), Fix: "check the host's cooling and airflow"}
	case g.ECCEnabled != nil && !*g.ECCEnabled:
		return Check{Status: Warn, Name: name, Detail: g.UUID + ": ECC is off", Fix: fmt.Sprintf("nvidia-smi -i %d -e 1, then reboot", g.Index)}
	}
	detail := fmt.Sprintf("%s %s, %d°C", g.UUID, g.Model, g.TemperatureC)
	if g.ECCEnabled != nil {
		detail += ", ECC on, no retired pages"
	}
	return Check{Status: OK, Name: name, Detail: detail}
}
