//go:build cgo

package gpu

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

func realEnumeration(n *NVML, e proofEnv) (string, error) {
	devs, _ := n.Devices(context.Background())
	rep, err := n.Inspect(context.Background())
	if err != nil {
		return "", err
	}
	if len(devs) == 0 {
		return "", errors.New("NVML lists no GPU")
	}
	models := map[string]int{}
	for i, d := range devs {
		if d.Model == "" || d.Index != i {
			return "", fmt.Errorf("GPU %d: %+v", i, d)
		}
		models[d.Model]++
	}
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(models)) {
		parts = append(parts, fmt.Sprintf("%d× %s", models[m], m))
	}
	return fmt.Sprintf("%d GPUs: %s; driver %s, CUDA %s", len(devs), strings.Join(parts, ", "), rep.DriverVersion, rep.CUDAVersion), nil
}

func realUUIDs(n *NVML, e proofEnv) (string, error) {
	devs, _ := n.Devices(context.Background())
	seen := map[string]bool{}
	for _, d := range devs {
		if !strings.HasPrefix(d.UUID, "GPU-") || len(d.UUID) < 40 || seen[d.UUID] {
			return "", fmt.Errorf("GPU %d: UUID %q is malformed or repeated", d.Index, d.UUID)
		}
		seen[d.UUID] = true
	}
	rows, err := smi("uuid")
	if err != nil {
		return "", err
	}
	detail := fmt.Sprintf("%d distinct GPU- UUIDs, first %s", len(devs), devs[0].UUID)
	if rows == nil {
		return detail + " (nvidia-smi absent: not cross-checked)", nil
	}
	for i, r := range rows {
		if i >= len(devs) || r[0] != devs[i].UUID {
			return "", fmt.Errorf("nvidia-smi's GPU %d is %s; NVML here says %v", i, r[0], devs)
		}
	}
	return detail + "; nvidia-smi agrees", nil
}

func realMemory(n *NVML, e proofEnv) (string, error) {
	devs, _ := n.Devices(context.Background())
	samples, err := n.Sample(context.Background())
	if err != nil {
		return "", err
	}
	rows, err := smi("memory.total")
	if err != nil {
		return "", err
	}
	var parts []string
	for i, d := range devs {
		if d.MemoryMiB <= 0 || samples[i].MemoryUsedMiB < 0 || samples[i].MemoryUsedMiB > d.MemoryMiB {
			return "", fmt.Errorf("GPU %d: %d MiB used of %d", i, samples[i].MemoryUsedMiB, d.MemoryMiB)
		}
		if i < len(rows) {
			if v, err := strconv.ParseInt(rows[i][0], 10, 64); err == nil && (v-d.MemoryMiB > v/100 || d.MemoryMiB-v > v/100) {
				return "", fmt.Errorf("GPU %d: NVML says %d MiB, nvidia-smi %d MiB", i, d.MemoryMiB, v)
			}
		}
		parts = append(parts, fmt.Sprintf("GPU %d %d/%d MiB", i, samples[i].MemoryUsedMiB, d.MemoryMiB))
	}
	return strings.Join(parts, ", "), nil
}

func realUtilization(n *NVML, e proofEnv) (string, error) {
	samples, err := n.Sample(context.Background())
	if err != nil {
		return "", err
	}
	var parts []string
	for i, s := range samples {
		switch {
		case s.NoUtilization:
			parts = append(parts, fmt.Sprintf("GPU %d not given (MIG mode?)", i))
		case s.UtilizationPct < 0 || s.UtilizationPct > 100:
			return "", fmt.Errorf("GPU %d: utilization %d%%", i, s.UtilizationPct)
		default:
			parts = append(parts, fmt.Sprintf("GPU %d %d%%", i, s.UtilizationPct))
		}
	}
	if !slices.ContainsFunc(samples, func(s Sample) bool { return !s.NoUtilization }) {
		return "", errSkip{"NVML gives no utilization for any GPU here (all in MIG mode?): " + strings.Join(parts, ", ")}
	}
	return strings.Join(parts, ", "), nil
}

func realPower(n *NVML, e proofEnv) (string, error) {
	samples, err := n.Sample(context.Background())
	if err != nil {
		return "", err
	}
	var parts []string
	for i, s := range samples {
		if s.PowerW <= 0 || s.PowerLimitW <= 0 || s.PowerW > s.PowerLimitW*12/10 {
			return "", fmt.Errorf("GPU %d: %d W of a %d W limit", i, s.PowerW, s.PowerLimitW)
		}
		parts = append(parts, fmt.Sprintf("GPU %d %d/%d W", i, s.PowerW, s.PowerLimitW))
	}
	return strings.Join(parts, ", "), nil
}

func realTemperature(n *NVML, e proofEnv) (string, error) {
	rep, err := n.Inspect(context.Background())
	if err != nil {
		return "", err
	}
	var parts []string
	for _, g := range rep.GPUs {
		if g.TemperatureC < 5 || g.TemperatureC > 105 {
			return "", fmt.Errorf("GPU %d at %d°C", g.Index, g.TemperatureC)
		}
		parts = append(parts, fmt.Sprintf("GPU %d %d°C (slows at %d°C)", g.Index, g.TemperatureC, g.SlowdownC))
	}
	return strings.Join(parts, ", "), nil
}

func realECC(n *NVML, e proofEnv) (string, error) {
	rep, err := n.Inspect(context.Background())
	if err != nil {
		return "", err
	}
	samples, _ := n.Sample(context.Background())
	var parts []string
	for i, g := range rep.GPUs {
		if g.Lost {
			return "", fmt.Errorf("GPU %d cannot be read (lost)", g.Index)
		}
		ecc := "no ECC"
		if g.ECCEnabled != nil {
			ecc = map[bool]string{true: "ECC on", false: "ECC off"}[*g.ECCEnabled]
		}
		h := ""
		if i < len(samples) {
			h = ", health " + samples[i].Health
			if samples[i].HealthReason != "" {
				h += " (" + samples[i].HealthReason + ")"
			}
		}
		parts = append(parts, fmt.Sprintf("GPU %d %s, %d uncorrected, %d retired pages%s", g.Index, ecc, g.ECCUncorrected, g.RetiredPages, h))
	}
	return strings.Join(parts, "; "), nil
}
