package views

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A node card draws each whole GPU as a tile and each GPU in MIG mode as one
// tile of its slices, in index order, and counts slices apart from GPUs.
func TestNodeCardGroupsMIGSlices(t *testing.T) {
	t.Parallel()
	n := Node{ID: 1, Name: "n1", Status: "up", GPUs: []GPU{
		{Index: 0, UUID: "MIG-a", Profile: "3g.40gb", Slices: 3, ParentUUID: "GPU-0", State: "allocated", JobID: 7, Holder: "ana"},
		{Index: 0, UUID: "MIG-b", Profile: "1g.10gb", Slices: 1, ParentUUID: "GPU-0", State: "free"},
		{Index: 0, UUID: "MIG-c", Profile: "1g.10gb", Slices: 1, ParentUUID: "GPU-0", State: "free"},
		{Index: 1, UUID: "GPU-1", State: "free"},
		{Index: 2, UUID: "MIG-d", Profile: "7g.80gb", Slices: 7, ParentUUID: "GPU-2", State: "free"},
	}}
	var got []string
	for _, g := range gpuGroups(n.GPUs) {
		if g.Slices == nil {
			got = append(got, "whole "+g.GPU.UUID)
		} else {
			got = append(got, g.Slices[0].ParentUUID+" "+migLayoutText(g.Slices))
		}
	}
	if d := cmp.Diff([]string{"GPU-0 3g.40gb, 2×1g.10gb", "whole GPU-1", "GPU-2 7g.80gb"}, got); d != "" {
		t.Errorf("tiles (-want +got)\n%s", d)
	}
	html := render(t, NodeCard(n, time.Now()))
	for name, want := range map[string]int{
		`data-testid="mig-gpu"`:                 2,
		`data-testid="mig-slice"`:               4,
		`data-testid="gpu-tile"`:                1,
		`flex-grow: 3`:                          1,
		`MIG 3g.40gb, 2×1g.10gb`:                1,
		`1 of 1 GPU and 3 of 4 MIG slices free`: 1,
	} {
		if c := strings.Count(html, name); c != want {
			t.Errorf("%s appears %d times, want %d", name, c, want)
		}
	}
}
