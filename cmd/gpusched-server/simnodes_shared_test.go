package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// serve --dev --sim-nodes 3x4 --sim-mig 0:7x1g.10gb --sim-shared 0-1:4:
// the first simulated node offers MIG slices, the last shared slots, the
// one between stays whole.
func TestSimNodesMIGAndShared(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	stop, err := startSimNodes(context.Background(), s.DB, s.Deps.Lifecycle, "3x4:H100-80GB", "0:7x1g.10gb", "0-1:4", s.URL, t.TempDir(), s.Logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	want := map[string]int{"sim-node-1 mig": 7, "sim-node-1 whole": 3, "sim-node-2 whole": 4, "sim-node-3 share": 8, "sim-node-3 whole": 2}
	got := map[string]int{}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for !cmp.Equal(want, got) {
		select {
		case <-deadline:
			t.Fatalf("devices (-want +got)\n%s", cmp.Diff(want, got))
		case <-tick.C:
		}
		var rows []struct {
			Node string `bun:"name"`
			Kind string `bun:"kind"`
			N    int    `bun:"n"`
		}
		if err := s.DB.Bun.NewRaw(`SELECT n.name, g.kind, count(*) AS n FROM gpus g JOIN nodes n ON n.id = g.node_id
WHERE g.present GROUP BY 1, 2`).Scan(context.Background(), &rows); err != nil {
			t.Fatal(err)
		}
		got = map[string]int{}
		for _, r := range rows {
			got[r.Node+" "+r.Kind] = r.N
		}
	}
}
