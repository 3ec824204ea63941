//go:build cgo

package gpu

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/google/go-cmp/cmp"
)

// layoutOf sums up what each GPU offers: "7×1g.10gb", or "whole".
func layoutOf(devs []Device) map[int]string {
	byGPU := map[int][]string{}
	for _, d := range devs {
		if d.MIG == nil {
			byGPU[d.Index] = nil
			continue
		}
		byGPU[d.Index] = append(byGPU[d.Index], d.MIG.Profile)
	}
	out := map[int]string{}
	for i, p := range byGPU {
		out[i] = slicesText(p)
	}
	return out
}

// One host taken through a sequence of layouts: each step's per-GPU
// actions, and what the host offers afterwards.
func TestNVMLApplyLayout(t *testing.T) {
	t.Parallel()
	m := newMIGMock(t)
	n, err := OpenNVML(m, fakeProc(t, map[int]int{4242: 0}))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ctx := context.Background()
	// GPU 7 was split by hand: a 3g instance as two compute instances.
	m.split(t, 7, giSpec{profile: nvml.GPU_INSTANCE_PROFILE_3_SLICE, start: 0, cis: []int{nvml.COMPUTE_INSTANCE_PROFILE_1_SLICE, nvml.COMPUTE_INSTANCE_PROFILE_2_SLICE}})
	const (
		u = LayoutUnchanged
		a = LayoutApplied
	)
	type step struct {
		name     string
		layout   string
		dryRun   bool
		setup    func()
		actions  map[int]LayoutAction // GPU → action; the rest unchanged
		detail   map[int]string       // GPU → words its detail holds
		errHas   string
		offers   map[int]string // after: GPU → devices; the rest whole
		hadGPU4  []string       // what GPU 4 had, when checked
		checkHad bool
	}
	steps := []step{
		{name: "dry run changes nothing", layout: "gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb; gpu 7: 1c.3g.40gb, 2c.3g.40gb", dryRun: true,
			actions: map[int]LayoutAction{0: LayoutWouldDo, 1: LayoutWouldDo, 2: LayoutWouldDo, 3: LayoutWouldDo, 4: LayoutWouldDo, 7: LayoutFailed},
			detail:  map[int]string{7: "compute-instance profiles"}, errHas: "GPU 7",
			offers: map[int]string{7: "1c.3g.40gb, 2c.3g.40gb"}},
		{name: "a busy GPU is left alone", layout: "gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb",
			setup:   func() { m.setProcs(4, nvml.ProcessInfo{Pid: 4242, UsedGpuMemory: 1 << 30}) },
			actions: map[int]LayoutAction{0: a, 1: a, 2: a, 3: a, 4: LayoutBusy, 7: a},
			detail:  map[int]string{0: "made 7 MIG devices", 4: "pid 4242 python (root)", 7: "MIG mode off"},
			offers:  map[int]string{0: "7×1g.10gb", 1: "7×1g.10gb", 2: "7×1g.10gb", 3: "7×1g.10gb"}},
		{name: "once free, it is split", layout: "gpu 0-3: 7x1g.10gb; gpu 4: 2x3g.40gb",
			setup:   func() { m.setProcs(4) },
			actions: map[int]LayoutAction{4: a}, checkHad: true, hadGPU4: nil,
			offers: map[int]string{0: "7×1g.10gb", 1: "7×1g.10gb", 2: "7×1g.10gb", 3: "7×1g.10gb", 4: "2×3g.40gb"}},
		{name: "a new split of a split GPU", layout: "gpu 0-3: 7x1g.10gb; gpu 4: 4g.40gb, 3g.40gb",
			actions: map[int]LayoutAction{4: a}, checkHad: true, hadGPU4: []string{"3g.40gb", "3g.40gb"},
			offers: map[int]string{0: "7×1g.10gb", 1: "7×1g.10gb", 2: "7×1g.10gb", 3: "7×1g.10gb", 4: "4g.40gb, 3g.40gb"}},
		{name: "too many slices: nothing is touched", layout: "gpu 0: 8x1g.10gb; gpu 1-3: 7x1g.10gb; gpu 4: 4g.40gb, 3g.40gb",
			actions: map[int]LayoutAction{0: LayoutFailed}, detail: map[int]string{0: "at most 7"}, errHas: "GPU 0: 8×1g.10gb",
			offers: map[int]string{0: "7×1g.10gb", 1: "7×1g.10gb", 2: "7×1g.10gb", 3: "7×1g.10gb", 4: "4g.40gb, 3g.40gb"}},
		{name: "back to whole", layout: "gpu 0: 7x1g.10gb",
			actions: map[int]LayoutAction{1: a, 2: a, 3: a, 4: a}, detail: map[int]string{1: "MIG mode off"},
			offers: map[int]string{0: "7×1g.10gb"}},
		{name: "a GPU that needs a reset says so", layout: "gpu 0: 7x1g.10gb; gpu 6: 7g.80gb",
			setup:   func() { m.gpus[6].needsReset = true },
			actions: map[int]LayoutAction{6: LayoutPending}, detail: map[int]string{6: "nvidia-smi -r -i 6"},
			offers: map[int]string{0: "7×1g.10gb"}},
	}
	for _, s := range steps {
		if s.setup != nil {
			s.setup()
		}
		l, err := ParseLayout(s.layout)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		changes, err := n.ApplyLayout(ctx, l, s.dryRun)
		if s.errHas == "" && err != nil || s.errHas != "" && (err == nil || !strings.Contains(err.Error(), s.errHas)) {
			t.Fatalf("%s: err = %v, want one mentioning %q", s.name, err, s.errHas)
		}
		got, want := map[int]LayoutAction{}, map[int]LayoutAction{}
		for i := range 8 {
			want[i] = u
			if act, ok := s.actions[i]; ok {
				want[i] = act
			}
		}
		for _, c := range changes {
			got[c.Index] = c.Action
			if w := s.detail[c.Index]; !strings.Contains(c.Detail, w) {
				t.Errorf("%s: GPU %d: detail %q, want it to mention %q", s.name, c.Index, c.Detail, w)
			}
			if c.Index == 4 && s.checkHad && !slices.Equal(c.Had, s.hadGPU4) {
				t.Errorf("%s: GPU 4 had %q, want %q", s.name, c.Had, s.hadGPU4)
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%s: actions (-want +got):\n%s", s.name, d)
		}
		devs, err := n.Schedulable(ctx)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		offers := map[int]string{}
		for i := range 8 {
			offers[i] = "whole"
			if o, ok := s.offers[i]; ok {
				offers[i] = o
			}
		}
		if d := cmp.Diff(offers, layoutOf(devs)); d != "" {
			t.Fatalf("%s: offered afterwards (-want +got):\n%s", s.name, d)
		}
	}
	if _, err := n.ApplyLayout(ctx, Layout{9: {"1g.10gb"}}, false); err == nil || !strings.Contains(err.Error(), "GPU 9") {
		t.Fatalf("a GPU the host lacks: %v", err)
	}
}

// A change reads as node doctor prints it.
func TestLayoutChangeString(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		c    LayoutChange
		want string
	}{
		"busy": {c: LayoutChange{Index: 4, Had: nil, Want: []string{"3g.40gb", "3g.40gb"}, Action: LayoutBusy, Detail: "1 processes hold it"},
			want: "gpu 4: busy (had whole, want 2×3g.40gb): 1 processes hold it"},
		"unchanged": {c: LayoutChange{Index: 0, Had: []string{"1g.10gb"}, Want: []string{"1g.10gb"}, Action: LayoutUnchanged},
			want: "gpu 0: unchanged (1g.10gb)"},
	}
	for name, tc := range tests {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}
