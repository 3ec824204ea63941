//go:build cgo

package gpu

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFakeMIGSpec(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		gpus, mig string
		want      string // the layout, as String writes it
		errHas    string
	}{
		"four H100s in sevens":              {gpus: "1x8:H100-80GB", mig: "0-3:7x1g.10gb", want: "gpu 0-3: 7×1g.10gb"},
		"two splits":                        {gpus: "1x8:H100-80GB", mig: "0-3:7x1g.10gb;4:2x3g.40gb", want: "gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb"},
		"the issue's own words":             {gpus: "1x8:H100-80GB", mig: "gpu 0-3: 7×1g.10gb", want: "gpu 0-3: 7×1g.10gb"},
		"an A100 40GB":                      {gpus: "1x8:A100-40GB", mig: "0:7x1g.5gb", want: "gpu 0: 7×1g.5gb"},
		"an H200 (the mock's are not real)": {gpus: "1x8:H200-141GB", mig: "0:7x1g.18gb", errHas: "no MIG profiles known for NVIDIA H200"},
		"a GPU beyond the node":             {gpus: "1x4:H100-80GB", mig: "4:1g.10gb", errHas: "GPUs 0-3"},
		"an A100 profile on a H100":         {gpus: "1x8:H100-80GB", mig: "0:1g.5gb", errHas: "offers 1g.10gb"},
		"eight slices":                      {gpus: "1x8:H100-80GB", mig: "0:8x1g.10gb", errHas: "at most 7"},
		"a GPU without MIG":                 {gpus: "1x8:L40S-48GB", mig: "0:1g.10gb", errHas: "no MIG profiles known for NVIDIA L40S"},
		"not a layout":                      {gpus: "1x8:H100-80GB", mig: "0-3 7x1g", errHas: "want GPUS: DEVICES"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec, err := ParseFakeSpec(tc.gpus)
			if err != nil {
				t.Fatal(err)
			}
			got, err := spec.WithMIG(tc.mig)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := got.MIG.String(); s != tc.want {
				t.Fatalf("layout %q, want %q", s, tc.want)
			}
		})
	}
}

// The fake's slices: names and memory from the mock's H100, stable UUIDs
// per host, jobs on a slice in its telemetry, and layouts applied as on a
// real host.
func TestFakeMIGDevices(t *testing.T) {
	t.Parallel()
	spec, _ := ParseFakeSpec("1x8:H100-80GB")
	spec, err := spec.WithMIG("0-3:7x1g.10gb")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f, again := NewFake("node-m", spec), NewFake("node-m", spec)
	devs, _ := f.Schedulable(ctx)
	devsAgain, _ := again.Schedulable(ctx)
	if d := cmp.Diff(devs, devsAgain); d != "" {
		t.Fatalf("same host, different devices:\n%s", d)
	}
	whole, _ := f.Devices(ctx)
	var want, got []string
	for i := range 4 {
		for range 7 {
			want = append(want, fmt.Sprintf("gpu %d 1g.10gb 1/7 10240 MiB", i))
		}
	}
	for i := 4; i < 8; i++ {
		want = append(want, fmt.Sprintf("gpu %d whole 81559 MiB", i))
	}
	uuids := map[string]bool{}
	for _, d := range devs {
		got = append(got, row(d))
		if uuids[d.UUID] || d.MIG != nil && (!strings.HasPrefix(d.UUID, "MIG-") || d.MIG.ParentUUID != whole[d.Index].UUID) {
			t.Fatalf("device %+v", d)
		}
		uuids[d.UUID] = true
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("schedulable (-want +got):\n%s", d)
	}
	rep, _ := f.Inspect(ctx)
	for _, g := range rep.GPUs {
		if *g.MIG != (g.Index < 4) {
			t.Fatalf("GPU %d: MIG mode %t", g.Index, *g.MIG)
		}
	}

	slice := devs[3]
	f.StartedOn(77, "ana", "python", []string{slice.UUID})
	samples, _ := f.SampleMIG(ctx)
	for k, s := range samples {
		busy := len(s.Processes) > 0
		if busy != (k == 3) || !s.NoUtilization || busy && (s.Processes[0].PID != 77 || s.MemoryUsedMiB < 6000 || s.MemoryUsedMiB > 10240) {
			t.Fatalf("slice %d: %+v", k, s)
		}
	}
	parents, _ := f.Sample(ctx)
	if p := parents[0]; !p.NoUtilization || len(p.Processes) != 1 || p.Processes[0].User != "ana" {
		t.Fatalf("GPU 0 as a whole: %+v", p)
	}

	apply := func(text string, wantActs map[int]LayoutAction, offers map[int]string) {
		t.Helper()
		l, err := ParseLayout(text)
		if err != nil {
			t.Fatal(err)
		}
		changes, err := f.ApplyLayout(ctx, l, false)
		if err != nil {
			t.Fatal(err)
		}
		acts := map[int]LayoutAction{}
		for _, c := range changes {
			if c.Action != LayoutUnchanged {
				acts[c.Index] = c.Action
			}
		}
		if d := cmp.Diff(wantActs, acts); d != "" {
			t.Fatalf("%s: actions (-want +got):\n%s", text, d)
		}
		devs, _ := f.Schedulable(ctx)
		all := map[int]string{}
		for i := range 8 {
			all[i] = "whole"
			if o, ok := offers[i]; ok {
				all[i] = o
			}
		}
		if d := cmp.Diff(all, layoutOf(devs)); d != "" {
			t.Fatalf("%s: offered (-want +got):\n%s", text, d)
		}
	}
	sevens := map[int]string{0: "7×1g.10gb", 1: "7×1g.10gb", 2: "7×1g.10gb", 3: "7×1g.10gb"}
	apply("0-3:7x1g.10gb;4:2x3g.40gb", map[int]LayoutAction{4: LayoutApplied},
		map[int]string{0: "7×1g.10gb", 1: "7×1g.10gb", 2: "7×1g.10gb", 3: "7×1g.10gb", 4: "2×3g.40gb"})
	apply("4:2x3g.40gb", map[int]LayoutAction{0: LayoutBusy, 1: LayoutApplied, 2: LayoutApplied, 3: LayoutApplied},
		map[int]string{0: "7×1g.10gb", 4: "2×3g.40gb"})
	f.Ended(77)
	apply("", map[int]LayoutAction{0: LayoutApplied, 4: LayoutApplied}, nil)
	apply("0-3:7x1g.10gb", map[int]LayoutAction{0: LayoutApplied, 1: LayoutApplied, 2: LayoutApplied, 3: LayoutApplied}, sevens)
	if after, _ := f.Schedulable(ctx); after[0].UUID == devs[0].UUID {
		t.Fatal("a new split kept the old MIG UUIDs")
	}
}
