package node_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// newMIGCluster is newCluster on a host of four H100s whose GPUs 0 and 1
// are split into seven 1g.10gb MIG devices each, with its agent running:
// it offers 14 slices and 2 whole GPUs.
func newMIGCluster(t *testing.T) *cluster {
	t.Helper()
	c := newCluster(t)
	spec, _ := gpu.ParseFakeSpec("1x4:H100-80GB")
	spec, err := spec.WithMIG("0-1:7x1g.10gb")
	if err != nil {
		t.Fatal(err)
	}
	c.fake = gpu.NewFake(t.Name(), spec)
	a := &node.Agent{Client: apiclient.New(c.s.URL, c.nodeToken), GPUs: c.fake, Hostname: "h", Version: "test",
		Logger: c.s.Logger.With("agent", "test"), Interval: time.Second, StateDir: c.stateDir}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	c.agent = a
	waitFor(t, "the agent's 16 devices with telemetry", func() bool { return liveGPUs(t, c.s.DB, c.node.ID) == 16 })
	return c
}

// submitOn queues a node job asking for gpus of gpuModel (a model, a MIG
// profile, or "" for any whole GPU).
func (c *cluster) submitOn(t *testing.T, command, gpuModel string, gpus int) int64 {
	t.Helper()
	body := fmt.Sprintf(`{"command": %q, "gpu_count": %d, "gpu_model": %q, "executor": "node", "workdir": "/"}`, command, gpus, gpuModel)
	status, out := c.s.Do(t, "POST", "/api/v1/queue/submit", c.user, body)
	if status != 201 {
		t.Fatalf("submit: %d %s", status, out)
	}
	var j struct{ ID int64 }
	_ = jsonUnmarshal(out, &j)
	return j.ID
}

// heldDevices is what job id holds now.
func (c *cluster) heldDevices(t *testing.T, id int64) []models.JobGPU {
	t.Helper()
	gs, err := models.JobGPUs(context.Background(), c.s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// A node with fake MIG registers its slices (its split GPUs not whole), a
// job asking for two 1g.10gb slices runs on two of them and its process sees
// them as CUDA_VISIBLE_DEVICES=MIG-…,MIG-…, and whole-GPU jobs take only the
// whole GPUs: a third waits while slices are free.
func TestMIGSlicesEndToEnd(t *testing.T) {
	t.Parallel()
	c := newMIGCluster(t)
	ctx := context.Background()

	var present []models.GPU
	if err := c.s.DB.Bun.NewSelect().Model(&present).Where("node_id = ? AND present", c.node.ID).OrderExpr("idx, uuid").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	devs, err := c.fake.Schedulable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, g := range present {
		kinds[g.Kind+" "+g.Profile]++
		i := slices.IndexFunc(devs, func(d gpu.Device) bool { return d.UUID == g.UUID })
		switch {
		case i < 0:
			t.Errorf("registered %s, which the host does not offer", g.UUID)
		case g.Kind == models.GPUMIG && (g.ParentUUID == nil || *g.ParentUUID != devs[i].MIG.ParentUUID || g.Index != devs[i].Index ||
			g.Slices != 1 || g.ParentSlices != 7 || g.MemoryMiB != devs[i].MemoryMiB):
			t.Errorf("slice registered as %+v, the host has %+v %+v", g, devs[i], devs[i].MIG)
		}
	}
	if d := cmp.Diff(map[string]int{"mig 1g.10gb": 14, "whole ": 2}, kinds); d != "" {
		t.Fatalf("registered devices (-want +got)\n%s", d)
	}

	slice := c.submitOn(t, `echo "gpus=$CUDA_VISIBLE_DEVICES"; sleep 30`, "1g.10gb", 2)
	c.waitState(t, slice, "running")
	held := c.heldDevices(t, slice)
	var uuids []string
	for _, g := range held {
		if g.Kind != models.GPUMIG || g.Profile != "1g.10gb" {
			t.Errorf("the 1g.10gb job holds %s (%s %q)", g.UUID, g.Kind, g.Profile)
		}
		uuids = append(uuids, g.UUID)
	}
	if len(uuids) != 2 {
		t.Fatalf("the 1g.10gb job holds %v, want 2 slices", uuids)
	}
	want := "gpus=" + strings.Join(uuids, ",") + "\n"
	waitFor(t, "the job's CUDA_VISIBLE_DEVICES in its output", func() bool { return strings.Contains(c.logs(t, slice).Data, want) })
	waitFor(t, "the fake to show the job's process on its slices", func() bool {
		samples, err := c.fake.SampleMIG(ctx)
		if err != nil {
			t.Fatal(err)
		}
		busy := 0
		for _, s := range samples {
			if slices.Contains(uuids, s.UUID) && len(s.Processes) == 1 {
				busy++
			}
		}
		return busy == 2
	})

	whole := c.submitOn(t, `sleep 30`, "", 2)
	c.waitState(t, whole, "running")
	for _, g := range c.heldDevices(t, whole) {
		if g.Kind != models.GPUWhole || g.Index < 2 {
			t.Errorf("the whole-GPU job holds %s (%s, GPU %d), not a whole GPU", g.UUID, g.Kind, g.Index)
		}
	}
	third := c.submitOn(t, `sleep 30`, "H100", 1)
	waitFor(t, "the third whole-GPU job to be explained", func() bool { return c.job(t, third).PendingCode != "" })
	if j := c.job(t, third); j.State != models.JobQueued {
		t.Fatalf("a whole-GPU job with only slices free is %s (code %q), want queued", j.State, j.PendingCode)
	}
	for _, id := range []int64{slice, whole, third} {
		c.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), c.user, "")
	}
	for _, id := range []int64{slice, whole} {
		c.waitState(t, id, "canceled")
	}
}

// gpusched run --gpu-type 1g.10gb on a MIG host: the local /acquire grants
// two slices and answers their MIG UUIDs as CUDA_VISIBLE_DEVICES.
func TestMIGLocalAcquire(t *testing.T) {
	t.Parallel()
	c := newMIGCluster(t)
	url := c.localAPI(t, false)
	alive := sleeper(t, time.Minute).Process.Pid
	status, out := post(t, url+"/acquire", fmt.Sprintf(`{"pid": %d, "num_gpus": 2, "gpu_type": "1g.10gb"}`, alive))
	gpus, _ := out["gpus"].(string)
	if status != 200 || len(strings.Split(gpus, ",")) != 2 || !strings.HasPrefix(gpus, "MIG-") || strings.Contains(gpus, ",GPU-") {
		t.Fatalf("acquire 2 slices: %d %v, want two MIG UUIDs", status, out)
	}
	id, _ := strconv.ParseInt(fmt.Sprint(out["job_id"]), 10, 64)
	var uuids []string
	for _, g := range c.heldDevices(t, id) {
		uuids = append(uuids, g.UUID)
	}
	if strings.Join(uuids, ",") != gpus {
		t.Errorf("the lease holds %v, the process was told %s", uuids, gpus)
	}
}
