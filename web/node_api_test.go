package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func registerBody(gpus int) string {
	req := api.RegisterNodeRequest{Hostname: "gpu-a.lab", AgentVersion: "1.0"}
	for i := range gpus {
		req.GPUs = append(req.GPUs, api.NodeGPU{Index: i, UUID: fmt.Sprintf("GPU-a-%d", i), Model: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559})
	}
	b, _ := json.Marshal(req)
	return string(b)
}

func TestNodeRegisterHeartbeatAndClusterStatus(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	nodeTok, node := s.NodeToken(t, "gpu-a")
	userTok, _ := s.UserToken(t, models.RoleMember)

	status, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(2))
	if status != 200 {
		t.Fatalf("register: %d %s", status, body)
	}
	var reg api.RegisterNodeResponse
	mustJSON(t, body, &reg)
	if reg.NodeID != node.ID || reg.Name != "gpu-a" || reg.HeartbeatIntervalS != 1 {
		t.Fatalf("register answer %+v", reg)
	}

	beat := `{"gpus":[{"uuid":"GPU-a-0","utilization_pct":87,"memory_used_mib":40000,"temperature_c":61,"power_w":500,"power_limit_w":700,"health":"ok"},
	                  {"uuid":"GPU-a-1","utilization_pct":0,"memory_used_mib":2,"temperature_c":30,"power_w":70,"power_limit_w":700,"health":"failed","health_reason":"XID 79"}]}`
	status, body = s.Do(t, "POST", fmt.Sprintf("/api/v1/nodes/%d/heartbeat", node.ID), nodeTok, beat)
	if status != 200 || !contains(body, `"reregister":false`) {
		t.Fatalf("heartbeat: %d %s", status, body)
	}

	status, body = s.Do(t, "GET", "/api/v1/cluster/gpu-status", userTok, "")
	if status != 200 {
		t.Fatalf("gpu-status: %d %s", status, body)
	}
	var cs handlers.ClusterStatusJSON
	mustJSON(t, body, &cs)
	if cs.TotalGPUs != 2 || cs.AvailableGPUs != 1 || cs.AllocatedGPUs != 0 || len(cs.Nodes) != 1 {
		t.Fatalf("totals %+v", cs)
	}
	n := cs.Nodes[0]
	if n.NodeID != "gpu-a" || n.Hostname != "gpu-a.lab" || n.Status != "up" || n.GPUType != "NVIDIA H100 80GB HBM3" {
		t.Fatalf("node %+v", n)
	}
	got := []handlers.GPUStatusJSON{n.GPUs[0], n.GPUs[1]}
	want := []handlers.GPUStatusJSON{
		{ID: 0, UUID: "GPU-a-0", Model: "NVIDIA H100 80GB HBM3", MemoryTotal: 81559, MemoryUsed: 40000, Utilization: 87, Temperature: 61, PowerW: 500, Health: "ok", State: "free", Kind: "whole"},
		{ID: 1, UUID: "GPU-a-1", Model: "NVIDIA H100 80GB HBM3", MemoryTotal: 81559, MemoryUsed: 2, Utilization: 0, Temperature: 30, PowerW: 70, Health: "failed", State: "unavailable", Kind: "whole"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("gpus (-want +got):\n%s", d)
	}
}

func TestHeartbeatAsksToRegisterAgainForUnknownGPUs(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, node := s.NodeToken(t, "gpu-b")
	if status, body := s.Do(t, "POST", "/api/v1/nodes/register", tok, registerBody(1)); status != 200 {
		t.Fatalf("register: %d %s", status, body)
	}
	status, body := s.Do(t, "POST", fmt.Sprintf("/api/v1/nodes/%d/heartbeat", node.ID), tok, `{"gpus":[{"uuid":"GPU-new","health":"ok"}]}`)
	if status != 200 || !contains(body, `"reregister":true`) {
		t.Fatalf("heartbeat: %d %s", status, body)
	}
}

// Bad input gets a 4xx with a sentence and a code, never a 500, and
// nothing is written.
func TestNodeRoutesRejectBadInput(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, node := s.NodeToken(t, "gpu-c")
	_, other := s.NodeToken(t, "gpu-d")
	beat := fmt.Sprintf("/api/v1/nodes/%d/heartbeat", node.ID)
	tests := map[string]struct {
		path, body string
		status     int
		code       string
	}{
		"malformed json":          {"/api/v1/nodes/register", `{"hostname": "x",`, 400, "invalid_json"},
		"not an object":           {"/api/v1/nodes/register", `[1,2]`, 400, "invalid_json"},
		"unknown field":           {"/api/v1/nodes/register", `{"hostname":"x","gpus":[],"colour":"red"}`, 400, "unknown_field"},
		"wrong type":              {"/api/v1/nodes/register", `{"hostname":7}`, 400, "invalid_field"},
		"trailing data":           {"/api/v1/nodes/register", `{"hostname":"x"} {}`, 400, "invalid_json"},
		"duplicate uuid":          {"/api/v1/nodes/register", `{"gpus":[{"index":0,"uuid":"u","model":"m","memory_mib":1},{"index":1,"uuid":"u","model":"m","memory_mib":1}]}`, 400, "invalid_field"},
		"negative memory":         {"/api/v1/nodes/register", `{"gpus":[{"index":0,"uuid":"u","model":"m","memory_mib":-1}]}`, 400, "invalid_field"},
		"unknown kind":            {"/api/v1/nodes/register", `{"gpus":[{"index":0,"uuid":"u","model":"m","memory_mib":1,"kind":"half"}]}`, 400, "invalid_field"},
		"mig without its slice":   {"/api/v1/nodes/register", `{"gpus":[{"index":0,"uuid":"MIG-u","model":"m","memory_mib":1,"kind":"mig"}]}`, 400, "invalid_field"},
		"mig, bad profile":        {"/api/v1/nodes/register", `{"gpus":[{"index":0,"uuid":"MIG-u","model":"m","memory_mib":1,"kind":"mig","mig":{"parent_uuid":"GPU-p","profile":"tiny","slices":1,"parent_slices":7}}]}`, 400, "invalid_field"},
		"mig, slices over parent": {"/api/v1/nodes/register", `{"gpus":[{"index":0,"uuid":"MIG-u","model":"m","memory_mib":1,"kind":"mig","mig":{"parent_uuid":"GPU-p","profile":"1g.10gb","slices":8,"parent_slices":7}}]}`, 400, "invalid_field"},
		"whole with a slice":      {"/api/v1/nodes/register", `{"gpus":[{"index":0,"uuid":"u","model":"m","memory_mib":1,"mig":{"parent_uuid":"GPU-p","profile":"1g.10gb","slices":1,"parent_slices":7}}]}`, 400, "invalid_field"},
		"whole GPU and its slice": {"/api/v1/nodes/register", `{"gpus":[{"index":0,"uuid":"GPU-p","model":"m","memory_mib":1},{"index":0,"uuid":"MIG-u","model":"m","memory_mib":1,"kind":"mig","mig":{"parent_uuid":"GPU-p","profile":"1g.10gb","slices":1,"parent_slices":7}}]}`, 400, "invalid_field"},
		"huge body":               {"/api/v1/nodes/register", `{"hostname":"` + strings.Repeat("x", 2<<20) + `"}`, 413, "body_too_large"},
		"utilization over 100":    {beat, `{"gpus":[{"uuid":"u","utilization_pct":101}]}`, 400, "invalid_field"},
		"unknown health":          {beat, `{"gpus":[{"uuid":"u","health":"meh"}]}`, 400, "invalid_field"},
		"unknown heartbeat field": {beat, `{"gpus":[],"load":1}`, 400, "unknown_field"},
		"another node's id":       {fmt.Sprintf("/api/v1/nodes/%d/heartbeat", other.ID), `{"gpus":[]}`, 403, "forbidden"},
		"id not a number":         {"/api/v1/nodes/abc/heartbeat", `{"gpus":[]}`, 400, "invalid_path"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			status, body := s.Do(t, "POST", tc.path, tok, tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if _, code := testserver.APIError(t, body); code != tc.code {
				t.Fatalf("code %q, want %q", code, tc.code)
			}
		})
	}
	// None of it registered anything.
	n, err := models.GetNode(t.Context(), s.DB.Bun, node.ID)
	if err != nil || n.Status != models.NodeNew {
		t.Fatalf("node after bad input: %+v %v", n, err)
	}
}

func TestWrongContentTypeIs415(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.NodeToken(t, "gpu-e")
	req := strings.NewReader(`{"gpus":[]}`)
	resp, err := s.Client().Post(s.URL+"/api/v1/nodes/register?x", "text/plain", req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// Without a token the route is 401 first: auth comes before parsing.
	if resp.StatusCode != 401 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	httpReq, _ := newReq("POST", s.URL+"/api/v1/nodes/register", `{"gpus":[]}`, tok, "text/plain")
	resp, err = s.Client().Do(httpReq)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	resp.Body.Close()
	if resp.StatusCode != 415 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
}
