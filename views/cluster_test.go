package views

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
)

// render renders c to a string, failing the test on error.
func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// sampleCluster is 2 nodes × 8 H100s in a mix of states.
func sampleCluster() Cluster {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	states := []string{"free", "allocated", "allocated", "held", "booked", "foreign", "unavailable", "free"}
	c := Cluster{UpdatedAt: now, Totals: ClusterTotals{
		Nodes: 2, NodesUp: 2, GPUs: 16, Free: 4, Allocated: 4, Unavailable: 2,
		AvgUtilizationPct: 47.6, MemoryUsedMiB: 500000, MemoryTotalMiB: 16 * 81559,
	}}
	for n := range 2 {
		node := Node{ID: int64(n + 1), Name: fmt.Sprintf("gpu-node-%d", n+1),
			Hostname: fmt.Sprintf("h100-%d.lab.internal", n+1), Status: "up",
			LastSeen: now.Add(-12 * time.Second)}
		for i, s := range states {
			g := GPU{Index: i, UUID: fmt.Sprintf("GPU-%d-%d", n, i), Model: "NVIDIA H100 80GB HBM3",
				MemoryUsedMiB: 40960, MemoryTotalMiB: 81559, UtilizationPct: 73, TemperatureC: 61,
				PowerW: 402, Health: "ok", State: s}
			if s == "allocated" {
				g.Holder, g.JobID, g.JobName = "alice@example.com", 42, "llama-ft"
			}
			node.GPUs = append(node.GPUs, g)
		}
		c.Nodes = append(c.Nodes, node)
	}
	return c
}

func TestClusterPage(t *testing.T) {
	c := sampleCluster()
	c.Nodes[1].GPUs[3].Holder = `<script>alert("x")</script>`
	c.Nodes[1].GPUs[2].Health = "degraded"
	html := render(t, ClusterPage(Page{Title: "Cluster", Nav: "cluster"}, c))

	for want, n := range map[string]int{
		`data-testid="gpu-tile"`:          16,
		`data-testid="node-card"`:         2,
		`data-testid="cluster-totals"`:    1,
		`data-testid="total-free"`:        1,
		`data-testid="total-allocated"`:   1,
		`data-testid="total-unavailable"`: 1,
		`data-testid="total-nodes"`:       1,
		`data-testid="total-util"`:        1,
		`data-testid="total-mem"`:         1,
		`data-field="util"`:               16,
		`data-field="mem"`:                16,
		`data-field="temp"`:               16,
		`aria-valuenow="73"`:              16,
		`id="cluster"`:                    1,
		`data-state="allocated"`:          4,
		`class="gpu-tile state-foreign"`:  2,
		`href="/jobs/42"`:                 4,
		`data-field="health"`:             1,
		`data-testid="cluster-empty"`:     0,
	} {
		if got := strings.Count(html, want); got != n {
			t.Errorf("%s: %d times, want %d", want, got, n)
		}
	}
	for _, want := range []string{
		`hx-ext="sse"`,
		`sse-connect="/events?topics=gpus,nodes,bookings,queue"`,
		`hx-get="/fragments/cluster"`,
		`hx-trigger="htmx:sseOpen, sse:gpus, sse:nodes, sse:bookings, sse:queue, every 15s"`,
		`hx-swap="innerHTML"`,
		`data-gpu-uuid="GPU-1-7"`,
		`>GPU 7</h3>`,
		`40.0 / 79.6 GiB`,
		`61 °C`,
		`402 W`,
		`style="width: 73%;"`,
		`12s ago`,
		`48%`, // average utilization, rounded
		`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`,
		`<title>Cluster · GPUScheduler</title>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(html, `<script>alert`) {
		t.Error("holder name was not escaped")
	}
}

// TestClusterGridFragment checks that the fragment swapped into #cluster has
// totals and nodes but not the live wrapper or the page around it.
func TestClusterGridFragment(t *testing.T) {
	html := render(t, ClusterGrid(sampleCluster()))
	for _, want := range []string{`data-testid="cluster-totals"`, `data-testid="node-card"`, `data-testid="gpu-tile"`} {
		if !strings.Contains(html, want) {
			t.Errorf("fragment lacks %s", want)
		}
	}
	for _, bad := range []string{`id="cluster"`, `sse-connect`, `hx-trigger`, `<html`, `<nav`} {
		if strings.Contains(html, bad) {
			t.Errorf("fragment contains %s", bad)
		}
	}
}

func TestClusterEmpty(t *testing.T) {
	html := render(t, ClusterPage(Page{}, Cluster{}))
	for _, want := range []string{
		`data-testid="cluster-empty"`,
		`<strong>No GPU nodes yet</strong> — start one with`,
		`<code>gpusched node --server URL --token TOKEN</code>`,
		`sse-connect="/events?topics=gpus,nodes,bookings,queue"`, // still live, so the first node appears by itself
		`data-testid="cluster-totals"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("empty page lacks %s", want)
		}
	}
	if strings.Contains(html, `data-testid="gpu-tile"`) || strings.Contains(html, `data-testid="node-card"`) {
		t.Error("empty cluster rendered tiles or nodes")
	}
}

func TestGPUTileEdgeCases(t *testing.T) {
	html := render(t, GPUTile(GPU{Index: 2, UUID: `x" onmouseover="evil`, State: "bogus",
		UtilizationPct: 180, Health: "failed", JobID: 7}))
	for _, want := range []string{
		`class="gpu-tile state-unknown is-unhealthy"`,
		`aria-valuenow="100"`,
		`style="width: 100%;"`,
		`href="/jobs/7" data-field="job">#7</a>`,
		`class="gpu-health health-failed"`,
		`data-gpu-uuid="x&#34; onmouseover=&#34;evil"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("tile lacks %s\n%s", want, html)
		}
	}
	free := render(t, GPUTile(GPU{State: "free", Health: "ok"}))
	if !strings.Contains(free, `data-field="holder">free</span>`) || strings.Contains(free, `data-field="health"`) {
		t.Errorf("free tile: %s", free)
	}
	if strings.Contains(free, ` id="`) {
		t.Error("tile without UUID should have no bar id")
	}
}

func TestNodeCardDown(t *testing.T) {
	html := render(t, NodeCard(Node{ID: 9, Name: "n9", Status: "down"}, time.Now()))
	for _, want := range []string{`status-down`, `data-node-id="9"`, `This node reported no GPUs.`, `data-field="seen">never`} {
		if !strings.Contains(html, want) {
			t.Errorf("node card lacks %s", want)
		}
	}
}
