//go:build cgo

package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/google/go-cmp/cmp"
)

// telemetry is what one mock GPU reports beyond go-nvml's dgxh100 server.
type telemetry struct {
	util, temp, powerMW, limitMW uint32
	usedMiB                      uint64
	procs                        []nvml.ProcessInfo
	pending, failed              bool
	ecc                          uint64
	switchBus                    string // remote of its active NVLinks; "" none
}

// dgx is go-nvml's 8 × H100 server with telemetry set per GPU; telemetry
// for GPUs not in t is idle with NVLinks to one NVSwitch.
func dgx(t map[int]telemetry) *server.Server {
	srv := dgxh100.New()
	for i, nd := range srv.Devices {
		d := nd.(*server.Device)
		tel, ok := t[i]
		if !ok {
			tel = telemetry{temp: 30, powerMW: 70000, limitMW: 700000, switchBus: "0000:c0:00.0"}
		}
		d.MemoryInfo.Used = tel.usedMiB << 20
		d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) { return nvml.Utilization{Gpu: tel.util}, nvml.SUCCESS }
		d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return tel.temp, nvml.SUCCESS }
		d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return tel.powerMW, nvml.SUCCESS }
		d.GetEnforcedPowerLimitFunc = func() (uint32, nvml.Return) { return tel.limitMW, nvml.SUCCESS }
		d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return tel.procs, nvml.SUCCESS }
		d.GetRemappedRowsFunc = func() (int, int, bool, bool, nvml.Return) { return 0, 2, tel.pending, tel.failed, nvml.SUCCESS }
		d.GetTotalEccErrorsFunc = func(nvml.MemoryErrorType, nvml.EccCounterType) (uint64, nvml.Return) { return tel.ecc, nvml.SUCCESS }
		// What Inspect reads beyond telemetry: an H100 with ECC and persistence on.
		d.GetTemperatureThresholdFunc = func(nvml.TemperatureThresholds) (uint32, nvml.Return) { return 87, nvml.SUCCESS }
		d.GetEccModeFunc = func() (nvml.EnableState, nvml.EnableState, nvml.Return) {
			return nvml.FEATURE_ENABLED, nvml.FEATURE_ENABLED, nvml.SUCCESS
		}
		d.GetRetiredPagesPendingStatusFunc = func() (nvml.EnableState, nvml.Return) { return nvml.FEATURE_DISABLED, nvml.SUCCESS }
		d.GetRetiredPagesFunc = func(nvml.PageRetirementCause) ([]uint64, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
		d.GetPersistenceModeFunc = func() (nvml.EnableState, nvml.Return) { return nvml.FEATURE_ENABLED, nvml.SUCCESS }
		// An H100 SXM has 18 NVLinks; here all reach the switch, or none is up.
		d.GetNvLinkStateFunc = func(link int) (nvml.EnableState, nvml.Return) {
			switch {
			case link >= 18:
				return 0, nvml.ERROR_INVALID_ARGUMENT
			case tel.switchBus == "":
				return nvml.FEATURE_DISABLED, nvml.SUCCESS
			}
			return nvml.FEATURE_ENABLED, nvml.SUCCESS
		}
		d.GetNvLinkRemotePciInfoFunc = func(int) (nvml.PciInfo, nvml.Return) {
			var p nvml.PciInfo
			for j, c := range tel.switchBus {
				p.BusId[j] = int8(c)
			}
			return p, nvml.SUCCESS
		}
	}
	return srv
}

// fakeProc writes a /proc with processes owned by uids.
func fakeProc(t *testing.T, owners map[int]int) ProcFS {
	t.Helper()
	root := t.TempDir()
	for pid, uid := range owners {
		dir := filepath.Join(root, fmt.Sprint(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		status := fmt.Sprintf("Name:\tpython\nUid:\t%d\t%d\t%d\t%d\n", uid, uid, uid, uid)
		_ = os.WriteFile(filepath.Join(dir, "status"), []byte(status), 0o644)
		_ = os.WriteFile(filepath.Join(dir, "comm"), []byte("python\n"), 0o644)
	}
	return ProcFS{Root: root}
}

func TestNVMLInventoryAndTopology(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		tel    map[int]telemetry
		groups []int // -1: no NVLink
	}{
		"one NVSwitch: all eight linked": {groups: []int{0, 0, 0, 0, 0, 0, 0, 0}},
		"two switches, one GPU without links": {
			tel: map[int]telemetry{
				4: {switchBus: "0000:d0:00.0"}, 5: {switchBus: "0000:d0:00.0"}, 6: {switchBus: "0000:d0:00.0"}, 7: {},
			},
			groups: []int{0, 0, 0, 0, 1, 1, 1, -1},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			n, err := OpenNVML(dgx(tc.tel), fakeProc(t, nil))
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			devs, _ := n.Devices(context.Background())
			var groups []int
			uuids := map[string]bool{}
			for i, d := range devs {
				if d.Index != i || d.Model != "NVIDIA H100 80GB HBM3" || d.MemoryMiB < 80000 || d.UUID == "" || uuids[d.UUID] {
					t.Fatalf("device %d = %+v", i, d)
				}
				uuids[d.UUID] = true
				g := -1
				if d.NVLinkGroup != nil {
					g = *d.NVLinkGroup
				}
				groups = append(groups, g)
			}
			if d := cmp.Diff(tc.groups, groups); d != "" {
				t.Fatalf("NVLink groups (-want +got):\n%s", d)
			}
		})
	}
}

// Telemetry, health from memory errors, and processes with their owners.
func TestNVMLSample(t *testing.T) {
	t.Parallel()
	sw := "0000:c0:00.0"
	srv := dgx(map[int]telemetry{
		0: {util: 97, temp: 61, powerMW: 650_000, limitMW: 700_000, usedMiB: 30000, switchBus: sw,
			procs: []nvml.ProcessInfo{{Pid: 101, UsedGpuMemory: 29000 << 20}, {Pid: 102, UsedGpuMemory: 500 << 20}}},
		3: {pending: true, switchBus: sw, limitMW: 700_000},
		5: {failed: true, switchBus: sw, limitMW: 700_000},
		6: {ecc: 4, switchBus: sw, limitMW: 700_000},
	})
	n, err := OpenNVML(srv, fakeProc(t, map[int]int{101: 0, 102: 4242}))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := n.Sample(context.Background())
	if err != nil || len(samples) != 8 {
		t.Fatalf("Sample = %d samples, %v", len(samples), err)
	}
	want0 := Sample{UUID: samples[0].UUID, UtilizationPct: 97, MemoryUsedMiB: 30000, TemperatureC: 61, PowerW: 650, PowerLimitW: 700, Health: "ok",
		Processes: []Process{{PID: 101, User: "root", Name: "python", MemoryMiB: 29000}, {PID: 102, User: "4242", Name: "python", MemoryMiB: 500}}}
	if d := cmp.Diff(want0, samples[0]); d != "" {
		t.Fatalf("GPU 0 (-want +got):\n%s", d)
	}
	health := map[int]string{}
	for i, s := range samples {
		health[i] = s.Health
		if i != 0 && len(s.Processes) != 0 {
			t.Fatalf("GPU %d has processes %v", i, s.Processes)
		}
	}
	want := map[int]string{0: "ok", 1: "ok", 2: "ok", 3: "degraded", 4: "ok", 5: "failed", 6: "degraded", 7: "ok"}
	if d := cmp.Diff(want, health); d != "" {
		t.Fatalf("health (-want +got):\n%s", d)
	}
	if samples[3].HealthReason == "" || samples[6].HealthReason == "" {
		t.Fatal("a degraded GPU must say why")
	}
}

// Without a usable driver, a clear error rather than a crash.
func TestNVMLMissing(t *testing.T) {
	t.Parallel()
	srv := dgxh100.New()
	srv.InitFunc = func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }
	_, err := OpenNVML(srv, HostProc)
	if !errors.Is(err, ErrNoNVML) {
		t.Fatalf("err = %v, want ErrNoNVML", err)
	}
	for _, want := range []string{"ERROR_LIBRARY_NOT_FOUND", "NVIDIA driver", "--fake-gpus"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not mention %q", err, want)
		}
	}
}
