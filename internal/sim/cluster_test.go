package sim

import "testing"

func TestParseCluster(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		spec string
		want Cluster
		ok   bool
	}{
		"team cluster": {"2x8:H100", Cluster{2, 8, "H100"}, true},
		"upper X":      {" 32X4:V100 ", Cluster{32, 4, "V100"}, true},
		"no model":     {"1x4", Cluster{1, 4, "GPU"}, true},
		"no x":         {"16:H100", Cluster{}, false},
		"zero nodes":   {"0x8:H100", Cluster{}, false},
		"65 per node":  {"1x65:H100", Cluster{}, false},
		"words":        {"twoxeight", Cluster{}, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseCluster(tc.spec)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseCluster(%q) = %+v, %v", tc.spec, got, err)
			}
			if again, err := ParseCluster(got.String()); tc.ok && (err != nil || again != got) {
				t.Errorf("%s does not read back: %+v, %v", got, again, err)
			}
		})
	}
}

func TestClusterInventory(t *testing.T) {
	t.Parallel()
	c := Cluster{2, 8, "H100"}
	nodes, gpus := c.inventory()
	if c.GPUs() != 16 || len(nodes) != 2 || len(gpus) != 16 || c.String() != "2x8:H100" {
		t.Fatalf("%d nodes, %d gpus, %s", len(nodes), len(gpus), c)
	}
	for i, g := range gpus {
		if g.ID != int64(i+1) || g.NodeID != int64(i/8+1) || g.Index != i%8 || !g.Healthy || g.Model != "H100" {
			t.Errorf("gpu %d = %+v", i, g)
		}
	}
	for _, n := range nodes {
		if !n.Up || n.Drained {
			t.Errorf("node %+v is not up", n)
		}
	}
}
