package gpu

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFakeSpec(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want FakeSpec
		err  bool
	}{
		"team cluster":  {in: "2x8:H100-80GB", want: FakeSpec{Nodes: 2, GPUsPerNode: 8, Model: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559}},
		"unknown model": {in: "1x4:B200-192GB", want: FakeSpec{Nodes: 1, GPUsPerNode: 4, Model: "NVIDIA B200", MemoryMiB: 192 * 1024}},
		"no model":      {in: "2x8", err: true},
		"zero nodes":    {in: "0x8:H100-80GB", err: true},
		"17 gpus":       {in: "1x17:H100-80GB", err: true},
		"garbage":       {in: "lots", err: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseFakeSpec(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %t", err, tc.err)
			}
			if d := cmp.Diff(tc.want, got); !tc.err && d != "" {
				t.Fatalf("(-want +got)\n%s", d)
			}
		})
	}
}

// The fake is deterministic per host, its values stay physical, and busy
// GPUs (here: with outside use simulated) show the process that keeps them busy.
func TestFakeTelemetry(t *testing.T) {
	t.Parallel()
	spec, _ := ParseFakeSpec("1x8:H100-80GB")
	spec.OutsideUse = true
	a, b := NewFake("node-a", spec), NewFake("node-a", spec)
	other := NewFake("node-b", spec)
	ctx := context.Background()
	da, _ := a.Devices(ctx)
	db, _ := other.Devices(ctx)
	if len(da) != 8 || da[0].UUID == db[0].UUID {
		t.Fatalf("devices %v vs %v: want 8, distinct UUIDs per host", da, db)
	}
	changed := false
	var first []Sample
	for step := range 200 {
		sa, _ := a.Sample(ctx)
		sb, _ := b.Sample(ctx)
		if d := cmp.Diff(sa, sb); d != "" {
			t.Fatalf("step %d: same host, different telemetry:\n%s", step, d)
		}
		if step == 0 {
			first = sa
		} else if cmp.Diff(first, sa) != "" {
			changed = true
		}
		for _, s := range sa {
			if s.UtilizationPct < 0 || s.UtilizationPct > 100 || s.MemoryUsedMiB < 0 || s.MemoryUsedMiB > spec.MemoryMiB || s.PowerW > s.PowerLimitW {
				t.Fatalf("step %d: implausible sample %+v", step, s)
			}
			if s.UtilizationPct > 0 && len(s.Processes) == 0 {
				t.Fatalf("step %d: busy GPU with no process: %+v", step, s)
			}
		}
	}
	if !changed {
		t.Fatal("telemetry never changed")
	}
}

// Without outside use the fake's GPUs are idle until the agent says a job
// runs on some: those show load and the job's process, until it ends.
func TestFakeFollowsJobs(t *testing.T) {
	t.Parallel()
	spec, _ := ParseFakeSpec("1x4:H100-80GB")
	f := NewFake("node-j", spec)
	ctx := context.Background()
	busy := func() map[int][]Process {
		out := map[int][]Process{}
		samples, _ := f.Sample(ctx)
		for i, s := range samples {
			if s.UtilizationPct > 0 || len(s.Processes) > 0 {
				out[i] = s.Processes
				if s.UtilizationPct < 50 || s.MemoryUsedMiB < spec.MemoryMiB/2 {
					t.Fatalf("GPU %d runs a job but looks idle: %+v", i, s)
				}
			}
		}
		return out
	}
	for range 100 {
		if b := busy(); len(b) != 0 {
			t.Fatalf("idle fake shows load: %v", b)
		}
	}
	f.Started(4242, "ana", "python", []int{1, 3})
	b := busy()
	want := map[int][]Process{1: {{PID: 4242, User: "ana", Name: "python"}}, 3: {{PID: 4242, User: "ana", Name: "python"}}}
	if d := cmp.Diff(want, b, cmp.Comparer(func(x, y Process) bool { return x.PID == y.PID && x.User == y.User && x.Name == y.Name })); d != "" {
		t.Fatalf("busy GPUs (-want +got):\n%s", d)
	}
	f.Ended(4242)
	if b := busy(); len(b) != 0 {
		t.Fatalf("after the job ended: %v", b)
	}
}
