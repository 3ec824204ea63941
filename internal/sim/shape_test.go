package sim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRunShapedJob checks that the simulator places a shaped job as the
// core does: 2 nodes × 2 GPUs on a 2 × 4 cluster leaves no node whole, so
// a 4-GPU job waits for it; unshaped, both start at once.
func TestRunShapedJob(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		nodes int
		want  []time.Duration // first starts
	}{
		"shaped 2×2 splits across both nodes": {nodes: 2, want: []time.Duration{0, time.Hour}},
		"unshaped 4 packs onto one node":      {nodes: 0, want: []time.Duration{0, 0}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := &Workload{Cluster: Cluster{Nodes: 2, GPUsPerNode: 4, Model: "H100"}, Scale: 1, Jobs: []Job{
				{ID: 1, Name: "shaped", User: 1, GPUs: 4, Nodes: tc.nodes, Runtime: time.Hour},
				{ID: 2, Name: "whole", User: 2, GPUs: 4, Runtime: time.Hour},
			}}
			r, err := Run(w, fcfsConfig(t))
			if err != nil {
				t.Fatal(err)
			}
			var got []time.Duration
			for _, rec := range r.Records {
				got = append(got, rec.FirstStart)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("first starts (-want +got):\n%s", d)
			}
		})
	}
}
