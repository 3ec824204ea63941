//go:build cgo

package gpu

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// The checks below run against the host's real GPUs, for the GPU proof
// (make gpu-proof builds this package's test binary; its run.sh runs them
// on a GPU host). They need NVIDIA hardware, so they are skipped unless
// GPUSCHED_REAL_GPU=1. Each check also writes "STATUS<tab>name<tab>detail"
// to the file GPUSCHED_PROOF_RESULTS names. Options:
//   - GPUSCHED_PROOF_PID, GPUSCHED_PROOF_MIB: a CUDA process holding at
//     least that much memory, for the process check and the telemetry;
//   - GPUSCHED_PROOF_SECONDS, GPUSCHED_PROOF_CSV: how long to sample
//     telemetry (default 30) and where to write the samples;
//   - GPUSCHED_PROOF_MIG_LAYOUT: a layout to apply and undo (needs root and
//     free GPUs), e.g. "gpu 0: 7x1g.10gb".
// The same checks run against go-nvml's mock in TestRealGPUChecksOnMock.

// errNoProgram skips the process check on a host without a CUDA program.
var errNoProgram = errSkip{"no CUDA program runs for the proof (run.sh starts one with torch or nvcc when the host has either)"}

// errSkip marks a check the host cannot do.
type errSkip struct{ why string }

func (e errSkip) Error() string { return e.why }

// proofEnv is what the proof's script tells the checks.
type proofEnv struct {
	pid     int   // a CUDA process, 0: none
	mib     int64 // the memory it holds at least
	seconds int   // how long to sample telemetry
	csv     string
	layout  string // a MIG layout to apply and undo
	// ownName is NVML's own name of a GPU-instance profile ("" unknown).
	ownName func(d nvml.Device, id int) string
}

// readProofEnv reads the GPUSCHED_PROOF_* variables.
func readProofEnv() (proofEnv, error) {
	e := proofEnv{seconds: 30, csv: os.Getenv("GPUSCHED_PROOF_CSV"), layout: os.Getenv("GPUSCHED_PROOF_MIG_LAYOUT"), ownName: nvmlProfileName}
	var err error
	if s := os.Getenv("GPUSCHED_PROOF_PID"); s != "" {
		if e.pid, err = strconv.Atoi(s); err != nil {
			return e, fmt.Errorf("GPUSCHED_PROOF_PID %q: %w", s, err)
		}
		e.mib, _ = strconv.ParseInt(os.Getenv("GPUSCHED_PROOF_MIB"), 10, 64)
	}
	if s := os.Getenv("GPUSCHED_PROOF_SECONDS"); s != "" {
		if e.seconds, err = strconv.Atoi(s); err != nil || e.seconds < 1 {
			return e, fmt.Errorf("GPUSCHED_PROOF_SECONDS %q: want seconds", s)
		}
	}
	return e, nil
}

// nvmlProfileName asks the real NVML for a profile's name ("MIG 1g.10gb").
func nvmlProfileName(d nvml.Device, id int) string {
	v2, ret := d.GetGpuInstanceProfileInfoV(id).V2()
	if ret != nvml.SUCCESS {
		return ""
	}
	return strings.TrimPrefix(cString(v2.Name[:]), "MIG ")
}

// realCheck is one proof check: a detail line, or why it failed.
type realCheck struct {
	name string
	run  func(n *NVML, e proofEnv) (string, error)
}

// realChecks are the proof's checks, in the order run.sh prints them.
var realChecks = []realCheck{
	{"enumeration", realEnumeration}, {"uuids", realUUIDs}, {"memory", realMemory},
	{"utilization", realUtilization}, {"power", realPower}, {"temperature", realTemperature},
	{"ecc", realECC}, {"mig-mode", realMIG}, {"mig-layout", realMIGLayout},
	{"process-attribution", realProcess}, {"telemetry", realTelemetry},
}

func TestRealGPU(t *testing.T) {
	if os.Getenv("GPUSCHED_REAL_GPU") != "1" {
		t.Skip("needs NVIDIA GPUs: set GPUSCHED_REAL_GPU=1 on a GPU host (make gpu-proof)")
	}
	env, err := readProofEnv()
	if err != nil {
		t.Fatal(err)
	}
	n, openErr := NewNVML()
	if openErr == nil {
		defer n.Close()
	}
	for _, c := range realChecks {
		t.Run(c.name, func(t *testing.T) {
			detail, err := "", fmt.Errorf("no GPU: %w", openErr)
			if openErr == nil {
				detail, err = c.run(n, env)
			}
			var skip errSkip
			switch {
			case errors.As(err, &skip):
				record(t, "SKIP", c.name, skip.why)
				t.Skip(skip.why)
			case err != nil:
				record(t, "FAIL", c.name, err.Error())
				t.Fatal(err)
			}
			record(t, "PASS", c.name, detail)
			t.Log(detail)
		})
	}
}

// record appends a check's line to GPUSCHED_PROOF_RESULTS.
func record(t *testing.T, status, name, detail string) {
	path := os.Getenv("GPUSCHED_PROOF_RESULTS")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("results file: %v", err)
	}
	defer f.Close()
	detail = strings.Join(strings.Fields(detail), " ")
	if _, err := fmt.Fprintf(f, "%s\t%s\t%s\n", status, name, detail); err != nil {
		t.Fatalf("results file: %v", err)
	}
}

// smi asks nvidia-smi for per-GPU fields, nil when it is not installed.
func smi(fields string) ([][]string, error) {
	if _, err := exec.LookPath("nvidia-smi"); err != nil {
		return nil, nil
	}
	out, err := exec.Command("nvidia-smi", "--query-gpu="+fields, "--format=csv,noheader,nounits").Output()
	if err != nil {
		return nil, fmt.Errorf("nvidia-smi --query-gpu=%s: %w", fields, err)
	}
	var rows [][]string
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		var row []string
		for f := range strings.SplitSeq(line, ",") {
			row = append(row, strings.TrimSpace(f))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

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

// realMIG reads MIG mode, the profiles (checking that our names are
// NVML's own) and, on GPUs in MIG mode, the slices and their telemetry.
func realMIG(n *NVML, e proofEnv) (string, error) {
	ctx := context.Background()
	rep, err := n.Inspect(ctx)
	if err != nil {
		return "", err
	}
	var parts []string
	for i, g := range rep.GPUs {
		if g.MIG == nil {
			parts = append(parts, fmt.Sprintf("GPU %d has no MIG", g.Index))
			continue
		}
		state := map[bool]string{true: "on", false: "off"}[*g.MIG]
		n.mu.Lock()
		profiles := n.profilesOf(i)
		var wrong []string
		for _, p := range profiles {
			if own := e.ownName(n.handles[i], p.ID); own != "" && own != p.Name {
				wrong = append(wrong, fmt.Sprintf("%s (NVML: %s)", p.Name, own))
			}
		}
		n.mu.Unlock()
		if len(wrong) > 0 {
			return "", fmt.Errorf("GPU %d: profile names differ from NVML's: %s", g.Index, strings.Join(wrong, ", "))
		}
		var names []string
		for _, p := range profiles {
			names = append(names, p.Name)
		}
		parts = append(parts, fmt.Sprintf("GPU %d MIG %s, profiles [%s]", g.Index, state, strings.Join(names, " ")))
	}
	devs, err := n.Schedulable(ctx)
	if err != nil {
		return "", err
	}
	samples, err := n.SampleMIG(ctx)
	if err != nil {
		return "", err
	}
	slicesSeen := 0
	for _, d := range devs {
		if d.MIG == nil {
			continue
		}
		slicesSeen++
		if !strings.HasPrefix(d.UUID, "MIG-") || d.MemoryMiB <= 0 || d.MIG.Slices <= 0 {
			return "", fmt.Errorf("MIG device %+v (%+v)", d, *d.MIG)
		}
	}
	if len(samples) != slicesSeen {
		return "", fmt.Errorf("%d MIG devices but %d MIG samples", slicesSeen, len(samples))
	}
	return fmt.Sprintf("%s; %d schedulable devices, %d of them MIG", strings.Join(parts, "; "), len(devs), slicesSeen), nil
}

// cString reads a NUL-terminated C string.
func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// realMIGLayout applies GPUSCHED_PROOF_MIG_LAYOUT and puts the GPUs back.
func realMIGLayout(n *NVML, e proofEnv) (string, error) {
	text := e.layout
	if text == "" {
		return "", errSkip{"set GPUSCHED_PROOF_MIG_LAYOUT (e.g. \"gpu 0: 7x1g.10gb\") to split free GPUs and put them back; needs root"}
	}
	ctx := context.Background()
	l, err := ParseLayout(text)
	if err != nil {
		return "", err
	}
	before, err := n.Schedulable(ctx)
	if err != nil {
		return "", err
	}
	back := Layout{}
	for _, d := range before {
		if d.MIG != nil {
			back[d.Index] = append(back[d.Index], d.MIG.Profile)
		}
	}
	changes, err := n.ApplyLayout(ctx, l, false)
	var did []string
	for _, c := range changes {
		did = append(did, c.String())
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.Join(did, "; "))
	}
	after, _ := n.Schedulable(ctx)
	got := layoutOfDevices(after)
	if _, err := n.ApplyLayout(ctx, back, false); err != nil {
		return "", fmt.Errorf("putting the GPUs back as %q: %w", back.String(), err)
	}
	for idx, want := range l {
		if !sameDevices(got[idx], want) {
			return "", fmt.Errorf("GPU %d offers %s after the layout, want %s (%s)", idx, slicesText(got[idx]), slicesText(want), strings.Join(did, "; "))
		}
	}
	return fmt.Sprintf("%s; put back as %q", strings.Join(did, "; "), back.String()), nil
}

// layoutOfDevices is what each GPU offers: its MIG devices' profiles, nil
// when whole.
func layoutOfDevices(devs []Device) Layout {
	out := Layout{}
	for _, d := range devs {
		if d.MIG != nil {
			out[d.Index] = append(out[d.Index], d.MIG.Profile)
		}
	}
	return out
}

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
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
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

// The proof's checks, run here against go-nvml's H100 mock (GPU 0 split
// into seven slices, a CUDA program on GPU 1), so the code that meets the
// real GPU has run before it gets there.
func TestRealGPUChecksOnMock(t *testing.T) {
	t.Parallel()
	m := newMIGMock(t)
	m.split(t, 0, sevenOnes...)
	m.setProcs(1, nvml.ProcessInfo{Pid: 101, UsedGpuMemory: 3000 << 20})
	m.Devices[1].(*server.Device).MemoryInfo.Used = 3500 << 20
	n, err := OpenNVML(m, fakeProc(t, map[int]int{101: 0}))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	dir := t.TempDir()
	e := proofEnv{pid: 101, mib: 3000, seconds: 1, csv: dir + "/telemetry.csv", layout: "gpu 0: 2x3g.40gb; gpu 2: 7g.80gb",
		ownName: func(nvml.Device, int) string { return "" }}
	want := map[string]string{ // check → words its detail holds
		"enumeration": "8 GPUs: 8× NVIDIA H100 80GB HBM3; driver 550.54.15, CUDA 12.4", "uuids": "8 distinct GPU- UUIDs",
		"memory": "GPU 1 3500/81920 MiB", "utilization": "GPU 0 not given (MIG mode?), GPU 1 10%", "power": "GPU 0 70/700 W",
		"temperature": "GPU 0 30°C (slows at 87°C)", "ecc": "GPU 0 ECC on, 0 uncorrected",
		"mig-mode":            "GPU 0 MIG on, profiles [1g.10gb 2g.20gb 3g.40gb 4g.40gb 7g.80gb 1g.10gb+me 1g.20gb]; GPU 1 MIG off",
		"mig-layout":          `gpu 0: applied (had 7×1g.10gb, want 2×3g.40gb): made 2 MIG devices; gpu 1: unchanged (whole); gpu 2: applied`,
		"process-attribution": "pid 101 python (root) holds 3000 MiB on GPU-",
		"telemetry":           "1 s at 1 Hz:",
	}
	for _, c := range realChecks {
		detail, err := c.run(n, e)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(detail, want[c.name]) {
			t.Errorf("%s: %q, want it to hold %q", c.name, detail, want[c.name])
		}
	}
	if devs, _ := n.Schedulable(context.Background()); layoutOf(devs)[0] != "7×1g.10gb" || layoutOf(devs)[2] != "whole" {
		t.Fatalf("the layout check did not put the GPUs back: %v", layoutOf(devs))
	}
	csv, err := os.ReadFile(e.csv)
	if err != nil || !strings.Contains(string(csv), ",101:root:3000") || strings.Count(string(csv), "\n") != 1+8+7 {
		t.Fatalf("telemetry CSV (%v):\n%s", err, csv)
	}
	if _, err := realProcess(n, proofEnv{}); !errors.Is(err, errNoProgram) {
		t.Fatalf("no CUDA program: %v", err)
	}
}
