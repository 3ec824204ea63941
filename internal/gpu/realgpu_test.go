//go:build cgo

package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

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
