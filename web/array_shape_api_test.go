package web_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sharedRegisterBody registers a node whose one H100 is shared slots ways.
func sharedRegisterBody(slots int) string {
	req := api.RegisterNodeRequest{Hostname: "shared-a.lab", AgentVersion: "1.0"}
	for i := range slots {
		req.GPUs = append(req.GPUs, api.NodeGPU{Index: 0, UUID: fmt.Sprintf("GPU-s-0-slot-%d", i), Model: "NVIDIA H100 80GB HBM3",
			MemoryMiB: 81559 / int64(slots), Kind: api.KindShare, Share: &api.NodeShare{ParentUUID: "GPU-s-0", Slots: slots}})
	}
	b, _ := json.Marshal(req)
	return string(b)
}

// TestArrayTasksCarryTheWholeRequest: every task of an array is the job a
// single submission of the same request would be: a shaped array's tasks
// each take 2 nodes × 8 GPUs, a share array's tasks each ask for half of a
// shared GPU and its memory; as stored (what the scheduler reads) and as
// the API shows each task.
func TestArrayTasksCarryTheWholeRequest(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	for _, n := range []string{"a", "b"} {
		tok, _ := s.NodeToken(t, "gpu-"+n)
		if st, body := s.Do(t, "POST", "/api/v1/nodes/register", tok, registerBodyFor(n, 8)); st != 200 {
			t.Fatalf("register %s: %d %s", n, st, body)
		}
	}
	tok, _ := s.NodeToken(t, "shared-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", tok, sharedRegisterBody(4)); st != 200 {
		t.Fatalf("register the shared GPU: %d %s", st, body)
	}
	member, _ := s.UserToken(t, models.RoleMember)

	tests := map[string]struct {
		body string
		want func(j api.Job) bool
	}{
		"2 nodes × 8 GPUs": {
			`{"command":"true","workdir":"/","array":"0-3","nodes":2,"gpus_per_node":8}`,
			func(j api.Job) bool {
				return j.Nodes == 2 && j.GPUsPerNode == 8 && j.RequestedGPUs == 16 && j.AllowMultiNode && j.GPUShare == 0
			},
		},
		"half a shared GPU with 20G": {
			`{"command":"true","workdir":"/","array":"0-3%2","gpu_share":0.5,"gpu_memory":"20G"}`,
			func(j api.Job) bool {
				return j.GPUShare == 0.5 && j.GPUMemoryMiB == 20480 && j.RequestedGPUs == 1 && j.Nodes == 0
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			status, out := s.Do(t, "POST", "/api/v1/queue/submit", member, tc.body)
			var sub api.Job
			if status != 201 || json.Unmarshal(out, &sub) != nil || sub.Array == nil || sub.Array.TaskCount != 4 {
				t.Fatalf("submit: %d %s", status, out)
			}
			if !tc.want(sub) {
				t.Errorf("the submission's answer lacks the request: %s", out)
			}
			tasks, err := models.ArrayTasks(t.Context(), s.DB.Bun, sub.Array.ID, 0)
			if err != nil || len(tasks) != 4 {
				t.Fatalf("tasks: %d %v", len(tasks), err)
			}
			for _, task := range tasks {
				status, out := s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d", task.ID), member, "")
				var j api.Job
				if status != 200 || json.Unmarshal(out, &j) != nil {
					t.Fatalf("task %d: %d %s", *task.ArrayTaskID, status, out)
				}
				if !tc.want(j) {
					t.Errorf("task %d does not carry the request: %s", *task.ArrayTaskID, out)
				}
				if task.Nodes != sub.Nodes || task.GPUShare != sub.GPUShare || task.ShareMemoryMiB != sub.GPUMemoryMiB || task.GPUCount != sub.RequestedGPUs {
					t.Errorf("task %d stored as nodes %d share %g memory %d MiB of %d GPUs; want the first task's %d, %g, %d, %d",
						*task.ArrayTaskID, task.Nodes, task.GPUShare, task.ShareMemoryMiB, task.GPUCount,
						sub.Nodes, sub.GPUShare, sub.GPUMemoryMiB, sub.RequestedGPUs)
				}
			}
		})
	}
}

// TestShareJobHasAnEstimate: a share job that finds every slot of the
// shared GPU taken is given an estimated start in the API (the queue's
// "starts in ~"): when the running shares' estimates end.
func TestShareJobHasAnEstimate(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.NodeToken(t, "shared-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", tok, sharedRegisterBody(4)); st != 200 {
		t.Fatalf("register the shared GPU: %d %s", st, body)
	}
	member, _ := s.UserToken(t, models.RoleMember)
	submit := func(body string) int64 {
		t.Helper()
		status, out := s.Do(t, "POST", "/api/v1/queue/submit", member, body)
		var j api.Job
		if status != 201 || json.Unmarshal(out, &j) != nil {
			t.Fatalf("submit %s: %d %s", body, status, out)
		}
		return j.ID
	}
	for range 2 { // the GPU's four slots, for an hour
		id := submit(`{"command":"sleep 3600","workdir":"/","gpu_share":0.5,"estimated_duration":"1h"}`)
		waitFor(t, fmt.Sprintf("share job %d placed", id), func() bool {
			j, err := models.GetJob(t.Context(), s.DB.Bun, id)
			return err == nil && j.State != models.JobQueued
		})
	}
	id := submit(`{"command":"true","workdir":"/","gpu_share":0.25,"estimated_duration":"10m"}`)
	var j api.Job
	waitFor(t, "the waiting share's estimate", func() bool {
		status, out := s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d", id), member, "")
		return status == 200 && json.Unmarshal(out, &j) == nil && j.EstimatedStartTime != nil
	})
	if wait := j.EstimatedStartTime.Sub(j.QueuedAt); wait < 50*time.Minute || wait > 70*time.Minute {
		t.Errorf("estimated to start %v after it was queued, want about an hour (%s: %s)", wait, j.ReasonCode, j.Reason)
	}
}
