package node_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// newSharedCluster is newCluster with its agent running on a host of four
// H100s whose GPU 0 is shared four ways and GPU 1 two ways, with MPS on:
// it offers 6 slots and 2 whole GPUs.
func newSharedCluster(t *testing.T) *cluster {
	t.Helper()
	c := newCluster(t)
	shared, err := node.ParseSharedGPUs("0:4;1:2", 4)
	if err != nil {
		t.Fatal(err)
	}
	a := &node.Agent{Client: apiclient.New(c.s.URL, c.nodeToken), GPUs: c.fake, Hostname: "h", Version: "test",
		Logger: c.s.Logger.With("agent", "test"), Interval: time.Second, StateDir: c.stateDir, Shared: shared, MPS: true}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	c.agent = a
	waitFor(t, "the agent's 8 devices with telemetry", func() bool { return liveGPUs(t, c.s.DB, c.node.ID) == 8 })
	return c
}

// submitShare queues a node job asking for a share of a GPU (body's
// gpu_share / gpu_memory fields).
func (c *cluster) submitShare(t *testing.T, command, fields string) int64 {
	t.Helper()
	body := fmt.Sprintf(`{"command": %q, %s, "executor": "node", "workdir": "/"}`, command, fields)
	status, out := c.s.Do(t, "POST", "/api/v1/queue/submit", c.user, body)
	if status != 201 {
		t.Fatalf("submit %s: %d %s", fields, status, out)
	}
	var j struct{ ID int64 }
	_ = jsonUnmarshal(out, &j)
	return j.ID
}

// A host with shared GPUs registers their slots (not the GPUs whole); a
// quarter share runs on one slot of the four-way GPU and its process sees
// that GPU in CUDA_VISIBLE_DEVICES with its share, memory limit and MPS's
// limits; a share by memory takes as many slots as hold it, on the GPU
// that fits it best;
// a whole-GPU job takes only the whole GPUs.
func TestSharedGPUsEndToEnd(t *testing.T) {
	t.Parallel()
	c := newSharedCluster(t)
	ctx := context.Background()

	var present []models.GPU
	if err := c.s.DB.Bun.NewSelect().Model(&present).Where("node_id = ? AND present", c.node.ID).OrderExpr("idx, uuid").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, g := range present {
		kinds[fmt.Sprintf("%s %d", g.Kind, g.Index)]++
		if g.Kind == models.GPUShare && (g.ParentUUID == nil || g.Fraction != 1/float64(g.ParentSlices) || g.MemoryMiB != 81559/int64(g.ParentSlices)) {
			t.Errorf("slot registered as %+v", g)
		}
	}
	if d := cmp.Diff(map[string]int{"share 0": 4, "share 1": 2, "whole 2": 1, "whole 3": 1}, kinds); d != "" {
		t.Fatalf("registered devices (-want +got)\n%s", d)
	}

	quarter := c.submitShare(t, `echo "gpus=$CUDA_VISIBLE_DEVICES share=$GPUSCHED_GPU_SHARE mem=$GPUSCHED_GPU_MEMORY_LIMIT `+
		`mps=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE/$CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"; sleep 30`, `"gpu_share": 0.25`)
	c.waitState(t, quarter, "running")
	held := c.heldDevices(t, quarter)
	if len(held) != 1 || held[0].Kind != models.GPUShare || held[0].Index != 0 {
		t.Fatalf("the quarter share holds %+v, want one slot of GPU 0", held)
	}
	want := "gpus=0 share=0.25 mem=20389M mps=25/0=20389M\n"
	waitFor(t, "the share's environment in its output", func() bool { return strings.Contains(c.logs(t, quarter).Data, want) })

	byMemory := c.submitShare(t, `sleep 30`, `"gpu_memory": "30G"`)
	c.waitState(t, byMemory, "running")
	held = c.heldDevices(t, byMemory)
	// Two 20 GB slots of GPU 0 hold it a little tighter than one 40 GB slot of GPU 1.
	if len(held) != 2 || held[0].Index != 0 || held[1].Index != 0 {
		t.Errorf("the 30G share holds %+v, want two slots of GPU 0", held)
	}

	whole := c.submitOn(t, `sleep 30`, "", 2)
	c.waitState(t, whole, "running")
	for _, g := range c.heldDevices(t, whole) {
		if g.Kind != models.GPUWhole || g.Index < 2 {
			t.Errorf("the whole-GPU job holds %s (%s, GPU %d), not a whole GPU", g.UUID, g.Kind, g.Index)
		}
	}
	third := c.submitOn(t, `sleep 30`, "", 1)
	waitFor(t, "the third whole-GPU job to be explained", func() bool { return c.job(t, third).PendingCode != "" })
	if j := c.job(t, third); j.State != models.JobQueued {
		t.Fatalf("a whole-GPU job with only slots free is %s (code %q), want queued", j.State, j.PendingCode)
	}
	for _, id := range []int64{quarter, byMemory, whole, third} {
		c.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), c.user, "")
	}
	for _, id := range []int64{quarter, byMemory, whole} {
		c.waitState(t, id, "canceled")
	}
}

// Share requests are checked at the edge: a fraction out of (0, 1], a
// share of several GPUs, memory no shared GPU has, or on a cluster with no
// shared GPU of the model are 400s naming the field.
func TestSubmitShareValidation(t *testing.T) {
	t.Parallel()
	c := newSharedCluster(t)
	tests := map[string]struct{ body, field string }{
		"fraction zero":     {`"gpu_share": 0`, "gpu_share"},
		"fraction over one": {`"gpu_share": 1.5`, "gpu_share"},
		"several GPUs":      {`"gpu_share": 0.5, "gpu_count": 2`, "gpu_count"},
		"too much memory":   {`"gpu_memory": "100G"`, "gpu_memory"},
		"not memory":        {`"gpu_memory": "lots"`, "gpu_memory"},
		"no shared A100":    {`"gpu_share": 0.5, "gpu_model": "A100"`, "gpu_share"},
		"multi-node share":  {`"gpu_share": 0.5, "allow_multi_node": true`, "allow_multi_node"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			body := fmt.Sprintf(`{"command": "true", %s, "executor": "node"}`, tc.body)
			status, out := c.s.Do(t, "POST", "/api/v1/queue/submit", c.user, body)
			if status != 400 || !strings.Contains(string(out), tc.field) {
				t.Errorf("submit %s: %d %s, want 400 naming %s", tc.body, status, out, tc.field)
			}
		})
	}
}

func TestParseSharedGPUs(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want string // as String writes it; "!" an error
	}{
		"none":          {"", ""},
		"range":         {"0-1:4", "0:4;1:4"},
		"two parts":     {"0-1:4; 3:2", "0:4;1:4;3:2"},
		"all of four":   {"all:2", "0:2;1:2;2:2;3:2"},
		"one slot":      {"0:1", "!"},
		"too many":      {"0:17", "!"},
		"no slots":      {"0-1", "!"},
		"reversed":      {"3-1:4", "!"},
		"not an index":  {"x:4", "!"},
		"negative gpus": {"-1:4", "!"},
	}
	for name, tc := range tests {
		got, err := node.ParseSharedGPUs(tc.in, 4)
		switch {
		case tc.want == "!" && err == nil:
			t.Errorf("%s: ParseSharedGPUs(%q) = %v, want an error", name, tc.in, got)
		case tc.want != "!" && (err != nil || got.String() != tc.want):
			t.Errorf("%s: ParseSharedGPUs(%q) = %q, %v; want %q", name, tc.in, got.String(), err, tc.want)
		}
	}
}

// One host with MIG slices, shared GPUs and whole GPUs side by side: a
// slice job, a share job and a whole-GPU job run at once, each on its kind
// of device, and each process sees its own CUDA_VISIBLE_DEVICES.
func TestSliceShareAndWholeSideBySide(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	spec, _ := gpu.ParseFakeSpec("1x4:H100-80GB")
	spec, err := spec.WithMIG("0:7x1g.10gb")
	if err != nil {
		t.Fatal(err)
	}
	c.fake = gpu.NewFake(t.Name(), spec)
	shared, err := node.ParseSharedGPUs("0-1:4", 4) // GPU 0 is in MIG mode: its slices win
	if err != nil {
		t.Fatal(err)
	}
	a := &node.Agent{Client: apiclient.New(c.s.URL, c.nodeToken), GPUs: c.fake, Hostname: "h", Version: "test",
		Logger: c.s.Logger.With("agent", "test"), Interval: time.Second, StateDir: c.stateDir, Shared: shared}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	c.agent = a
	waitFor(t, "7 slices, 4 slots and 2 whole GPUs", func() bool { return liveGPUs(t, c.s.DB, c.node.ID) == 13 })

	env := `echo "gpus=$CUDA_VISIBLE_DEVICES share=$GPUSCHED_GPU_SHARE"; sleep 30`
	slice := c.submitOn(t, env, "1g.10gb", 1)
	share := c.submitShare(t, env, `"gpu_share": 0.5`)
	whole := c.submitOn(t, env, "", 2)
	for _, id := range []int64{slice, share, whole} {
		c.waitState(t, id, "running")
	}
	kinds := map[int64]string{}
	for _, id := range []int64{slice, share, whole} {
		for _, g := range c.heldDevices(t, id) {
			kinds[id] += fmt.Sprintf("%s:%d ", g.Kind, g.Index)
		}
	}
	want := map[int64]string{slice: "mig:0 ", share: "share:1 share:1 ", whole: "whole:2 whole:3 "}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Errorf("devices held (-want +got)\n%s", d)
	}
	sliceUUID := c.heldDevices(t, slice)[0].UUID
	for id, out := range map[int64]string{slice: "gpus=" + sliceUUID + " share=\n", share: "gpus=1 share=0.5\n", whole: "gpus=2,3 share=\n"} {
		waitFor(t, fmt.Sprintf("job %d's environment", id), func() bool { return strings.Contains(c.logs(t, id).Data, out) })
	}
	for _, id := range []int64{slice, share, whole} {
		c.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), c.user, "")
		c.waitState(t, id, "canceled")
	}
}
