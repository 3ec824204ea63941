package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCluster(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		spec string
		want Cluster
		ok   bool
	}{
		"team cluster": {"2x8:H100", Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}, true},
		"upper X":      {" 32X4:V100 ", Cluster{Nodes: 32, GPUsPerNode: 4, Model: "V100"}, true},
		"no model":     {"1x4", Cluster{Nodes: 1, GPUsPerNode: 4, Model: "GPU"}, true},
		"two models": {"1x8:L4@2.5+2x4:H100", Cluster{Nodes: 1, GPUsPerNode: 8, Model: "L4", Slowdown: 2.5,
			More: []NodeGroup{{Nodes: 2, GPUsPerNode: 4, Model: "H100"}}}, true},
		"no x":            {"16:H100", Cluster{}, false},
		"zero nodes":      {"0x8:H100", Cluster{}, false},
		"65 per node":     {"1x65:H100", Cluster{}, false},
		"words":           {"twoxeight", Cluster{}, false},
		"bad slowdown":    {"1x8:L4@fast", Cluster{}, false},
		"zero slowdown":   {"1x8:L4@0", Cluster{}, false},
		"empty group":     {"1x8:L4+", Cluster{}, false},
		"too many nodes":  {"6000x1:A+6000x1:B", Cluster{}, false},
		"bad second half": {"1x8:L4+1x65:H100", Cluster{}, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseCluster(tc.spec)
			if (err == nil) != tc.ok {
				t.Fatalf("ParseCluster(%q) = %+v, %v", tc.spec, got, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("ParseCluster(%q) (-want +got):\n%s", tc.spec, diff)
			}
			if again, err := ParseCluster(got.String()); tc.ok && (err != nil || cmp.Diff(got, again) != "") {
				t.Errorf("%s does not read back: %+v, %v", got, again, err)
			}
		})
	}
}

func TestClusterInventory(t *testing.T) {
	t.Parallel()
	c := Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}
	nodes, gpus, slow, _ := c.inventory()
	if c.GPUs() != 16 || len(nodes) != 2 || len(gpus) != 16 || len(slow) != 17 || c.String() != "2x8:H100" {
		t.Fatalf("%d nodes, %d gpus, %d slowdowns, %s", len(nodes), len(gpus), len(slow), c)
	}
	for i, g := range gpus {
		if g.ID != int64(i+1) || g.NodeID != int64(i/8+1) || g.Index != i%8 || !g.Healthy || g.Model != "H100" || slow[g.ID] != 1 {
			t.Errorf("gpu %d = %+v, slowdown %v", i, g, slow[g.ID])
		}
	}
	for _, n := range nodes {
		if !n.Up || n.Drained {
			t.Errorf("node %+v is not up", n)
		}
	}
}

// Node groups follow one another in ID order, each GPU with its model and
// slowdown.
func TestClusterInventoryTwoModels(t *testing.T) {
	t.Parallel()
	c, err := ParseCluster("1x2:L4@3+2x1:H100")
	if err != nil {
		t.Fatal(err)
	}
	nodes, gpus, slow, _ := c.inventory()
	type row struct {
		ID, Node int64
		Index    int
		Model    string
		Slow     float64
	}
	var got []row
	for _, g := range gpus {
		got = append(got, row{g.ID, g.NodeID, g.Index, g.Model, slow[g.ID]})
	}
	want := []row{{1, 1, 0, "L4", 3}, {2, 1, 1, "L4", 3}, {3, 2, 0, "H100", 1}, {4, 3, 0, "H100", 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GPUs (-want +got):\n%s", diff)
	}
	if len(nodes) != 3 || c.NodeCount() != 3 || c.GPUs() != 4 || c.MaxGPUsPerNode() != 2 || cmp.Diff([]string{"L4", "H100"}, c.Models()) != "" {
		t.Errorf("%d nodes (%d), %d GPUs, at most %d per node, models %v", len(nodes), c.NodeCount(), c.GPUs(), c.MaxGPUsPerNode(), c.Models())
	}
}
