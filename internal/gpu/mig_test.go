//go:build cgo

package gpu

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/google/go-cmp/cmp"
)

// row sums up a schedulable device for comparison.
func row(d Device) string {
	if d.MIG == nil {
		return fmt.Sprintf("gpu %d whole %d MiB", d.Index, d.MemoryMiB)
	}
	return fmt.Sprintf("gpu %d %s %d/%d %d MiB", d.Index, d.MIG.Profile, d.MIG.Slices, d.MIG.ParentSlices, d.MemoryMiB)
}

// sevenOnes is a GPU made into seven 1g.10gb instances by hand.
var sevenOnes = []giSpec{
	{profile: nvml.GPU_INSTANCE_PROFILE_1_SLICE, start: 0}, {profile: nvml.GPU_INSTANCE_PROFILE_1_SLICE, start: 1},
	{profile: nvml.GPU_INSTANCE_PROFILE_1_SLICE, start: 2}, {profile: nvml.GPU_INSTANCE_PROFILE_1_SLICE, start: 3},
	{profile: nvml.GPU_INSTANCE_PROFILE_1_SLICE, start: 4}, {profile: nvml.GPU_INSTANCE_PROFILE_1_SLICE, start: 5},
	{profile: nvml.GPU_INSTANCE_PROFILE_1_SLICE, start: 6},
}

// GPUs split by hand are offered as their MIG devices, never whole; the
// others whole.
func TestNVMLMIGEnumeration(t *testing.T) {
	t.Parallel()
	m := newMIGMock(t)
	for i := range 4 {
		m.split(t, i, sevenOnes...)
	}
	m.split(t, 4, giSpec{profile: nvml.GPU_INSTANCE_PROFILE_3_SLICE, start: 0},
		giSpec{profile: nvml.GPU_INSTANCE_PROFILE_3_SLICE, start: 4, cis: []int{nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_2_SLICE}})
	n, err := OpenNVML(m, fakeProc(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	whole, _ := n.Devices(context.Background())
	devs, err := n.Schedulable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for i := range 4 {
		for range 7 {
			want = append(want, fmt.Sprintf("gpu %d 1g.10gb 1/7 10240 MiB", i))
		}
	}
	want = append(want, "gpu 4 3g.40gb 3/7 40960 MiB", "gpu 4 1c.3g.40gb 1/7 40960 MiB", "gpu 4 2c.3g.40gb 2/7 40960 MiB",
		"gpu 5 whole 81920 MiB", "gpu 6 whole 81920 MiB", "gpu 7 whole 81920 MiB")
	uuids := map[string]bool{}
	for _, d := range devs {
		got = append(got, row(d))
		if uuids[d.UUID] {
			t.Fatalf("UUID %s twice", d.UUID)
		}
		uuids[d.UUID] = true
		switch {
		case d.Kind() == KindWhole && (d.UUID != whole[d.Index].UUID || d.Index < 5):
			t.Fatalf("whole device %+v", d)
		case d.Kind() == KindMIG && (!strings.HasPrefix(d.UUID, "MIG-") || d.MIG.ParentUUID != whole[d.Index].UUID || d.Model != "NVIDIA H100 80GB HBM3"):
			t.Fatalf("MIG device %+v of %+v", d, *d.MIG)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("schedulable devices (-want +got):\n%s", d)
	}
	if f := devs[0].MIG.Fraction(); math.Abs(f-1.0/7) > 1e-9 {
		t.Fatalf("a 1g slice is %v of an H100", f)
	}
	// The whole GPUs stay the host's GPUs, MIG or not.
	if len(whole) != 8 {
		t.Fatalf("Devices lists %d GPUs", len(whole))
	}
}

// Per slice: its memory, the processes NVML places in its instances, and
// the parent's readings; no utilization, which NVML does not give in MIG
// mode.
func TestNVMLSampleMIG(t *testing.T) {
	t.Parallel()
	m := newMIGMock(t)
	m.split(t, 0, sevenOnes...)
	n, err := OpenNVML(m, fakeProc(t, map[int]int{101: 0, 102: 4242}))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ctx := context.Background()
	devs, _ := n.Schedulable(ctx)
	third := devs[2]
	m.setUsed(third.UUID, 5200)
	m.setProcs(0,
		nvml.ProcessInfo{Pid: 101, UsedGpuMemory: 5000 << 20, GpuInstanceId: uint32(third.MIG.GPUInstanceID), ComputeInstanceId: uint32(third.MIG.ComputeInstanceID)},
		nvml.ProcessInfo{Pid: 102, UsedGpuMemory: math.MaxUint64, GpuInstanceId: uint32(devs[6].MIG.GPUInstanceID), ComputeInstanceId: uint32(devs[6].MIG.ComputeInstanceID)})
	samples, err := n.SampleMIG(ctx)
	if err != nil || len(samples) != 7 {
		t.Fatalf("SampleMIG = %d samples, %v", len(samples), err)
	}
	parent := Sample{TemperatureC: 30, PowerW: 70, PowerLimitW: 700, Health: "ok", NoUtilization: true}
	for k, s := range samples {
		want := parent
		want.UUID = devs[k].UUID
		switch k {
		case 2:
			want.MemoryUsedMiB = 5200
			want.Processes = []Process{{PID: 101, User: "root", Name: "python", MemoryMiB: 5000}}
		case 6:
			want.Processes = []Process{{PID: 102, User: "4242", Name: "python"}} // memory not told
		}
		if d := cmp.Diff(want, s); d != "" {
			t.Fatalf("slice %d (-want +got):\n%s", k, d)
		}
	}
	// Where the parent tells no processes, each slice's handle does.
	m.gpus[0].mu.Lock()
	m.gpus[0].parentHidesProcs = true
	m.gpus[0].mu.Unlock()
	samples, _ = n.SampleMIG(ctx)
	if p := samples[2].Processes; len(p) != 1 || p[0].PID != 101 || len(samples[3].Processes) != 0 {
		t.Fatalf("processes from the slices' handles: %+v", samples)
	}
	whole, _ := n.Sample(ctx)
	if !whole[0].NoUtilization || whole[1].NoUtilization || whole[1].UtilizationPct != 10 {
		t.Fatalf("whole samples: GPU 0 %+v, GPU 1 %+v", whole[0], whole[1])
	}
}

// A layout is checked against the H100's real profiles and placements.
func TestPlanLayoutH100(t *testing.T) {
	t.Parallel()
	m := newMIGMock(t)
	profiles := readProfiles(m.Devices[0], 81920)
	var names []string
	for _, p := range profiles {
		names = append(names, p.Name)
	}
	if d := cmp.Diff([]string{"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb", "1g.10gb+me", "1g.20gb"}, names); d != "" {
		t.Fatalf("H100 profiles (-want +got):\n%s", d)
	}
	tests := map[string]struct {
		layout string
		errHas string
	}{
		"seven 1g":              {layout: "7x1g.10gb"},
		"two 3g":                {layout: "2x3g.40gb"},
		"4g and 3g":             {layout: "4g.40gb, 3g.40gb"},
		"three 2g and a 1g":     {layout: "3x2g.20gb, 1g.10gb"},
		"1g+me with six 1g":     {layout: "1g.10gb+me, 6x1g.10gb"},
		"eight 1g":              {layout: "8x1g.10gb", errHas: "at most 7"},
		"two 4g":                {layout: "2x4g.40gb", errHas: "at most 1"},
		"7g and a 1g":           {layout: "7g.80gb, 1g.10gb", errHas: "8 compute slices; this GPU has 7"},
		"an A100 profile":       {layout: "1g.5gb", errHas: "offers 1g.10gb, 2g.20gb"},
		"a compute split":       {layout: "1c.3g.40gb", errHas: "compute-instance profiles"},
		"five 1g.20gb":          {layout: "5x1g.20gb", errHas: "at most 4"},
		"two 3g and one 1g":     {layout: "2x3g.40gb, 1g.10gb"},
		"one of each small one": {layout: "1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, err := ParseLayout("0: " + tc.layout)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := planGPU(profiles, l[0])
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.errHas)
				}
				return
			}
			if err != nil || len(plan) != len(l[0]) {
				t.Fatalf("plan %v, %v", plan, err)
			}
			used := 0
			for _, p := range plan {
				mask := (1<<p.At.Size - 1) << p.At.Start
				if used&mask != 0 {
					t.Fatalf("overlapping placements: %+v", plan)
				}
				used |= mask
			}
		})
	}
}
