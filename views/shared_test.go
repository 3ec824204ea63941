package views

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A node card draws a shared GPU as one tile of its slots, with its holders,
// beside MIG and whole GPUs, and counts slots apart from GPUs.
func TestNodeCardGroupsSharedSlots(t *testing.T) {
	t.Parallel()
	slot := func(uuid, state string, job int64, holder string) GPU {
		return GPU{Index: 1, UUID: uuid, ParentUUID: "GPU-1", Model: "NVIDIA H100 80GB HBM3", SharedSlots: 4, State: state,
			JobID: job, Holder: holder, MemoryUsedMiB: 30000, MemoryTotalMiB: 20389}
	}
	n := Node{ID: 1, Name: "n1", Status: "up", GPUs: []GPU{
		{Index: 0, UUID: "GPU-0", State: "free"},
		slot("GPU-1/share-1-of-4", "allocated", 7, "ana"),
		slot("GPU-1/share-2-of-4", "allocated", 7, "ana"),
		slot("GPU-1/share-3-of-4", "allocated", 9, "bo"),
		slot("GPU-1/share-4-of-4", "free", 0, ""),
		{Index: 2, UUID: "MIG-d", Profile: "7g.80gb", Slices: 7, ParentUUID: "GPU-2", State: "free"},
	}}
	var got []string
	for _, g := range gpuGroups(n.GPUs) {
		switch {
		case g.Shared:
			got = append(got, "shared "+g.Slices[0].ParentUUID+" "+strings.Repeat("|", len(g.Slices)))
		case g.Slices != nil:
			got = append(got, "mig "+g.Slices[0].ParentUUID)
		default:
			got = append(got, "whole "+g.GPU.UUID)
		}
	}
	if d := cmp.Diff([]string{"whole GPU-0", "shared GPU-1 ||||", "mig GPU-2"}, got); d != "" {
		t.Errorf("tiles (-want +got)\n%s", d)
	}
	html := render(t, NodeCard(n, time.Now()))
	for name, want := range map[string]int{
		`data-testid="shared-gpu"`:  1,
		`data-testid="shared-slot"`: 4,
		`data-testid="mig-gpu"`:     1,
		`data-testid="gpu-tile"`:    1,
		`shared 4 ways`:             1,
		`1 of 4 slots free`:         1,
		`>ana<`:                     2,
		`>bo<`:                      1,
		`1 of 1 GPU and 1 of 1 MIG slice and 1 of 4 shared slots free`: 1,
	} {
		if c := strings.Count(html, name); c != want {
			t.Errorf("%s appears %d times, want %d", name, c, want)
		}
	}
}
