package gpu

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLayout(t *testing.T) {
	t.Parallel()
	seven := []string{"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"}
	tests := map[string]struct {
		in     string
		want   Layout
		canon  string // String() of the result
		errHas string // an error mentioning this
	}{
		"the admin's example": {in: "gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb",
			want:  Layout{0: seven, 1: seven, 2: seven, 3: seven, 4: {"3g.40gb", "3g.40gb"}},
			canon: "gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb"},
		"ascii x, no gpu word (the fake's spec)": {in: "0-3:7x1g.10gb",
			want: Layout{0: seven, 1: seven, 2: seven, 3: seven}, canon: "gpu 0-3: 7×1g.10gb"},
		"mixed profiles, count defaults to 1": {in: "gpu 5: 4g.40gb + 3g.40gb",
			want: Layout{5: {"4g.40gb", "3g.40gb"}}, canon: "gpu 5: 4g.40gb, 3g.40gb"},
		"a suffix is not a separator": {in: "gpus 1: 1g.10gb+me, 2×2g.20gb+1x1g.10gb",
			want: Layout{1: {"1g.10gb+me", "2g.20gb", "2g.20gb", "1g.10gb"}}, canon: "gpu 1: 1g.10gb+me, 2×2g.20gb, 1g.10gb"},
		"a list of GPUs, new lines": {in: "GPU 0,2,4-5: 2x3g.40gb\ngpu 7: whole\n",
			want:  Layout{0: {"3g.40gb", "3g.40gb"}, 2: {"3g.40gb", "3g.40gb"}, 4: {"3g.40gb", "3g.40gb"}, 5: {"3g.40gb", "3g.40gb"}},
			canon: "gpu 0: 2×3g.40gb; gpu 2: 2×3g.40gb; gpu 4-5: 2×3g.40gb"},
		"empty: every GPU whole":   {in: " ", want: Layout{}, canon: ""},
		"a compute-instance split": {in: "gpu 0: 1c.3g.40gb", want: Layout{0: {"1c.3g.40gb"}}, canon: "gpu 0: 1c.3g.40gb"},
		"no colon":                 {in: "gpu 0 7x1g.10gb", errHas: "want GPUS: DEVICES"},
		"no index":                 {in: "gpu: 7x1g.10gb", errHas: "no GPU index"},
		"range backwards":          {in: "gpu 3-1: 1g.10gb", errHas: `GPUs "3-1"`},
		"index too large":          {in: "gpu 64: 1g.10gb", errHas: "0–63"},
		"GPU named twice":          {in: "gpu 0-3: 7x1g.10gb; gpu 3: 3g.40gb", errHas: "GPU 3 twice"},
		"not a profile":            {in: "gpu 0: 7 slices", errHas: "want COUNT×PROFILE"},
		"zero of a profile":        {in: "gpu 0: 0x1g.10gb", errHas: "1 to 8"},
		"nothing after the colon":  {in: "gpu 0:", errHas: `write "whole"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLayout(tc.in)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("(-want +got)\n%s", d)
			}
			if s := got.String(); s != tc.canon {
				t.Fatalf("String() = %q, want %q", s, tc.canon)
			}
			again, err := ParseLayout(got.String())
			if err != nil || !cmp.Equal(again, got) {
				t.Fatalf("String() does not read back: %v, %v", again, err)
			}
		})
	}
}

// Names from the memory real GPUs report (nvidia-smi mig -lgip), not the
// round numbers of the mock.
func TestProfileName(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		slices        int
		mem, total    int64
		suffix, wantN string
	}{
		"H100 1g.10gb":    {1, 9984, 81559, "", "1g.10gb"},
		"H100 1g.10gb+me": {1, 9984, 81559, "+me", "1g.10gb+me"},
		"H100 1g.20gb":    {1, 20096, 81559, "", "1g.20gb"},
		"H100 3g.40gb":    {3, 40448, 81559, "", "3g.40gb"},
		"H100 7g.80gb":    {7, 81152, 81559, "", "7g.80gb"},
		"A100-40GB 1g":    {1, 4864, 40536, "", "1g.5gb"},
		"A100-40GB 7g":    {7, 40192, 40536, "", "7g.40gb"},
		"A100-80GB 7g":    {7, 80896, 81920, "", "7g.80gb"},
		"H200 1g":         {1, 16384, 143771, "", "1g.18gb"},
		"H200 3g":         {3, 71680, 143771, "", "3g.71gb"},
		"mock H100 4g":    {4, 40960, 81920, "", "4g.40gb"},
	}
	for name, tc := range tests {
		if got := profileName(tc.slices, tc.mem, tc.total, tc.suffix); got != tc.wantN {
			t.Errorf("%s: %q, want %q", name, got, tc.wantN)
		}
	}
	if got := deviceProfile(1, Profile{Name: "3g.40gb", Slices: 3}); got != "1c.3g.40gb" {
		t.Errorf("a 1-slice compute instance of a 3g.40gb: %q", got)
	}
}

// Placements decide what fits, as on a real H100, where a 3g instance
// takes four memory slices: two 3g leave no room for a 1g.
func TestPlanGPUPlacements(t *testing.T) {
	t.Parallel()
	ones := []Placement{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {6, 1}}
	profiles := []Profile{
		{ID: 0, Name: "1g.10gb", Slices: 1, MemoryMiB: 9984, Instances: 7, Placements: ones},
		{ID: 2, Name: "3g.40gb", Slices: 3, MemoryMiB: 40448, Instances: 2, Placements: []Placement{{0, 4}, {4, 4}}},
		{ID: 3, Name: "4g.40gb", Slices: 4, MemoryMiB: 40448, Instances: 1, Placements: []Placement{{0, 4}}},
		{ID: 4, Name: "7g.80gb", Slices: 7, MemoryMiB: 81152, Instances: 1, Placements: []Placement{{0, 8}}},
	}
	tests := map[string]struct {
		want   []string
		at     []Placement // where, largest first
		errHas string
	}{
		"4g then 3g":      {want: []string{"3g.40gb", "4g.40gb"}, at: []Placement{{0, 4}, {4, 4}}},
		"3g and three 1g": {want: []string{"1g.10gb", "3g.40gb", "1g.10gb", "1g.10gb"}, at: []Placement{{0, 4}, {4, 1}, {5, 1}, {6, 1}}},
		"two 3g and a 1g": {want: []string{"3g.40gb", "3g.40gb", "1g.10gb"}, errHas: "do not fit together"},
		"4g and three 1g": {want: []string{"4g.40gb", "1g.10gb", "1g.10gb", "1g.10gb"}, at: []Placement{{0, 4}, {4, 1}, {5, 1}, {6, 1}}},
		"3g and a 7g":     {want: []string{"3g.40gb", "7g.80gb"}, errHas: "10 compute slices; this GPU has 7"},
		"nothing offered": {want: []string{"1g.10gb"}, errHas: "offers no MIG profiles"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			offered := profiles
			if name == "nothing offered" {
				offered = nil
			}
			plan, err := planGPU(offered, tc.want)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var at []Placement
			for _, p := range plan {
				at = append(at, p.At)
			}
			if d := cmp.Diff(tc.at, at); d != "" {
				t.Fatalf("placements (-want +got):\n%s", d)
			}
		})
	}
}
