package sim

import (
	"strings"
	"testing"
)

// TestWriteHTML: one self-contained page with uPlot inlined, the three
// charts and the slowdown bars of every policy.
func TestWriteHTML(t *testing.T) {
	t.Parallel()
	w := &Workload{Jobs: threeJobs(), Cluster: Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100"}, Scale: 1}
	ps, err := Policies([]string{"fcfs", "default"})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Compare(w, ps, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := (Report{Trace: &Trace{File: "three.csv"}, Workload: w, Metrics: ms}).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<!doctype html>", "uPlot", "CDF of waits", "CDF of JCTs", "GPUs held", "<h3>default</h3>", "user01"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script src=") || strings.Contains(page, "<link ") {
		t.Error("page loads something from elsewhere")
	}
}
