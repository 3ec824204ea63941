//go:build cgo

package gpu

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// realProcess finds the proof's CUDA process among the GPUs' processes,
// with its owner, name and memory.
func realProcess(n *NVML, e proofEnv) (string, error) {
	pid, mib := e.pid, e.mib
	if pid == 0 {
		return "", errNoProgram
	}
	owner, err := n.procs.Owner(pid)
	if err != nil {
		return "", fmt.Errorf("the CUDA program (pid %d) is gone: %w", pid, err)
	}
	var seen []string
	poll := time.NewTicker(500 * time.Millisecond) // NVML's process list catches up with the program
	defer poll.Stop()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); <-poll.C {
		whole, err := n.Sample(context.Background())
		if err != nil {
			return "", err
		}
		migs, _ := n.SampleMIG(context.Background())
		seen = seen[:0]
		for _, s := range append(whole, migs...) {
			for _, p := range s.Processes {
				seen = append(seen, fmt.Sprintf("pid %d %s (%s) %d MiB on %s", p.PID, p.Name, p.User, p.MemoryMiB, s.UUID))
				if p.PID != pid {
					continue
				}
				if p.User != owner || p.MemoryMiB < mib {
					return "", fmt.Errorf("pid %d on %s: user %q (want %q), %d MiB (want at least %d)", pid, s.UUID, p.User, owner, p.MemoryMiB, mib)
				}
				return fmt.Sprintf("pid %d %s (%s) holds %d MiB on %s", pid, p.Name, p.User, p.MemoryMiB, s.UUID), nil
			}
		}
	}
	return "", fmt.Errorf("pid %d (holding %d MiB) not among the GPUs' processes in 20 s; NVML shows [%s] (another PID namespace?)", pid, mib, strings.Join(seen, "; "))
}

// realTelemetry samples every GPU once a second while the CUDA program
// runs, writes the samples as CSV, and sums them up per GPU.
func realTelemetry(n *NVML, e proofEnv) (string, error) {
	secs, pid, mib := e.seconds, e.pid, e.mib
	var csv strings.Builder
	csv.WriteString("t_s,uuid,util_pct,util_given,mem_used_mib,temp_c,power_w,processes\n")
	type span struct {
		util, mem, power, temp [2]int64 // min, max
		n                      int
		holds                  bool
	}
	spans := map[string]*span{}
	var order []string
	grow := func(r *[2]int64, v int64, first bool) {
		if first || v < r[0] {
			r[0] = v
		}
		if first || v > r[1] {
			r[1] = v
		}
	}
	start := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for k := range secs {
		if k > 0 {
			<-tick.C
		}
		whole, err := n.Sample(context.Background())
		if err != nil {
			return "", err
		}
		migs, _ := n.SampleMIG(context.Background())
		for _, s := range append(whole, migs...) {
			sp, ok := spans[s.UUID]
			if !ok {
				sp = &span{}
				spans[s.UUID] = sp
				order = append(order, s.UUID)
			}
			first := sp.n == 0
			grow(&sp.util, int64(s.UtilizationPct), first)
			grow(&sp.mem, s.MemoryUsedMiB, first)
			grow(&sp.power, int64(s.PowerW), first)
			grow(&sp.temp, int64(s.TemperatureC), first)
			sp.n++
			var procs []string
			for _, p := range s.Processes {
				procs = append(procs, fmt.Sprintf("%d:%s:%d", p.PID, p.User, p.MemoryMiB))
				sp.holds = sp.holds || p.PID == pid
			}
			fmt.Fprintf(&csv, "%.1f,%s,%d,%t,%d,%d,%d,%s\n", time.Since(start).Seconds(), s.UUID, s.UtilizationPct, !s.NoUtilization,
				s.MemoryUsedMiB, s.TemperatureC, s.PowerW, strings.Join(procs, " "))
		}
	}
	if path := e.csv; path != "" {
		if err := os.WriteFile(path, []byte(csv.String()), 0o644); err != nil {
			return "", fmt.Errorf("writing the samples: %w", err)
		}
	}
	var parts []string
	loaded := false
	for _, u := range order {
		sp := spans[u]
		if sp.n < secs {
			return "", fmt.Errorf("%s: %d samples in %d s", u, sp.n, secs)
		}
		parts = append(parts, fmt.Sprintf("%s: util %d–%d%%, mem %d–%d MiB, %d–%d W, %d–%d°C", u[:12], sp.util[0], sp.util[1],
			sp.mem[0], sp.mem[1], sp.power[0], sp.power[1], sp.temp[0], sp.temp[1]))
		if sp.holds {
			loaded = true
			if sp.mem[1] < mib {
				return "", fmt.Errorf("%s holds the CUDA program but shows at most %d MiB used, want %d", u, sp.mem[1], mib)
			}
		}
	}
	detail := fmt.Sprintf("%d s at 1 Hz: %s", secs, strings.Join(parts, "; "))
	if pid != 0 && !loaded {
		return "", fmt.Errorf("the CUDA program (pid %d) showed on no GPU while sampling: %s", pid, detail)
	}
	return detail, nil
}
