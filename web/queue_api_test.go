package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// withNode registers a node of gpus H100s and returns the server.
func withNode(t *testing.T, gpus int) *testserver.Server {
	t.Helper()
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(gpus)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	return s
}

func doKey(t *testing.T, s *testserver.Server, method, path, token, key, body string) (int, []byte) {
	t.Helper()
	req, _ := newReq(method, s.URL+path, body, token, "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readAll(t, resp)
}

func TestSubmitValidation(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	member, _ := s.UserToken(t, models.RoleMember)
	tests := map[string]struct {
		body   string
		status int
		code   string
		says   string
	}{
		"a lease":                              {`{"gpu_count":2,"executor":"lease","estimated_duration":"2h","priority":"high"}`, 201, "", ""},
		"missing gpu_count":                    {`{"executor":"lease"}`, 400, "invalid_field", "gpu_count"},
		"zero gpus":                            {`{"gpu_count":0,"executor":"lease"}`, 400, "invalid_field", "at least 1"},
		"more than a node":                     {`{"gpu_count":9,"executor":"lease"}`, 400, "invalid_field", "do not fit on one node (at most 8)"},
		"more than the cluster":                {`{"gpu_count":9,"executor":"lease","allow_multi_node":true}`, 400, "invalid_field", "8 GPUs in all"},
		"unknown model":                        {`{"gpu_count":1,"executor":"lease","gpu_model":"A100"}`, 400, "invalid_field", "the cluster has: NVIDIA H100"},
		"shape: count is not nodes × per node": {`{"gpu_count":6,"nodes":2,"gpus_per_node":4,"executor":"lease"}`, 400, "invalid_field", "6 is not nodes 2 × gpus_per_node 4"},
		"shape: per node needs nodes":          {`{"gpus_per_node":4,"executor":"lease"}`, 400, "invalid_field", "needs nodes"},
		"shape: uneven":                        {`{"gpu_count":5,"nodes":2,"executor":"lease"}`, 400, "invalid_field", "do not divide evenly among 2 nodes"},
		"shape: per node over the largest":     {`{"nodes":1,"gpus_per_node":9,"executor":"lease"}`, 400, "invalid_field", "the largest node has 8"},
		"shape: negative nodes":                {`{"gpu_count":1,"nodes":-1,"executor":"lease"}`, 400, "invalid_field", "nodes"},
		"shape: one node of four":              {`{"nodes":1,"gpus_per_node":4,"executor":"lease"}`, 201, "", ""},
		"too much memory":                      {`{"gpu_count":1,"executor":"lease","memory_gb":200}`, 400, "invalid_field", "the largest has 79.6 GB"},
		"bad priority":                         {`{"gpu_count":1,"executor":"lease","priority":"urgent"}`, 400, "invalid_field", "priority"},
		"critical for members":                 {`{"gpu_count":1,"executor":"lease","priority":4}`, 403, "forbidden", "only admins"},
		"bad duration":                         {`{"gpu_count":1,"executor":"lease","estimated_duration":"soon"}`, 400, "invalid_field", "estimated_duration"},
		"negative duration":                    {`{"gpu_count":1,"executor":"lease","estimated_duration":-5}`, 400, "invalid_field", "between 1 second"},
		"node jobs need a command":             {`{"gpu_count":1,"executor":"ray","command":""}`, 400, "invalid_field", "cannot run ray jobs"},
		"a node job":                           {`{"gpu_count":1,"command":"python train.py"}`, 201, "", ""},
		"a node job needs one":                 {`{"gpu_count":1,"executor":"node"}`, 400, "invalid_field", "command"},
		"bad env name":                         {`{"gpu_count":1,"executor":"lease","env":{"1X":"y"}}`, 400, "invalid_field", "env"},
		"unknown field":                        {`{"gpu_count":1,"executor":"lease","gpus":3}`, 400, "unknown_field", "gpus"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			status, body := s.Do(t, "POST", "/api/v1/queue/submit", member, tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if tc.code == "" {
				return
			}
			msg, code := testserver.APIError(t, body)
			if code != tc.code || !strings.Contains(msg, tc.says) {
				t.Fatalf("got %q (%s), want code %s saying %q", msg, code, tc.code, tc.says)
			}
		})
	}
}

func TestSubmitIdempotencyKey(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, u := s.UserToken(t, models.RoleMember)
	body := `{"gpu_count":8,"executor":"lease","name":"once"}`
	st1, b1 := doKey(t, s, "POST", "/api/v1/queue/submit", tok, "k-1", body)
	st2, b2 := doKey(t, s, "POST", "/api/v1/queue/submit", tok, "k-1", body)
	if st1 != 201 || st2 != 201 || string(b1) != string(b2) {
		t.Fatalf("retry answered differently:\n%d %s\n%d %s", st1, b1, st2, b2)
	}
	n, err := s.DB.Bun.NewSelect().Model((*models.Job)(nil)).Where("owner_id = ?", u.ID).Count(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("%d jobs after a retried submit, want 1 (%v)", n, err)
	}
	st3, b3 := doKey(t, s, "POST", "/api/v1/queue/submit", tok, "k-1", `{"gpu_count":1,"executor":"lease"}`)
	if st3 != 422 {
		t.Fatalf("reused key with another body: %d %s", st3, b3)
	}
}

// A lease through the API, end to end: granted at once while GPUs are
// free, queued with a reason while they are not, granted as soon as they
// are released (event-driven), and released again.
func TestLeaseLifecycle(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, _ := s.UserToken(t, models.RoleMember)

	status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"job_id":"run-a","gpu_count":2,"timeout_s":20}`)
	if status != 200 {
		t.Fatalf("allocate 2: %d %s", status, body)
	}
	var first api.Allocation
	mustJSON(t, body, &first)
	if len(first.GPUs) != 2 || first.Node != "gpu-a" || strings.Count(first.CUDAVisibleDevices, ",") != 1 || first.JobID != "run-a" {
		t.Fatalf("first grant %+v", first)
	}

	// All 8 cannot start while 2 are held: 202 with the job to poll.
	status, body = s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":8,"timeout_s":0.5}`)
	if status != http.StatusAccepted {
		t.Fatalf("allocate 8: %d %s", status, body)
	}
	var waiting struct {
		api.Job
		Poll string `json:"poll"`
	}
	mustJSON(t, body, &waiting)
	if waiting.State != "queued" || waiting.Poll != fmt.Sprintf("/api/v1/jobs/%d", waiting.ID) {
		t.Fatalf("waiting %+v", waiting)
	}
	// The scheduler explains why it waits.
	var j handlers.JobDetailJSON
	if !eventually(10*time.Second, func() bool {
		_, body = s.Do(t, "GET", waiting.Poll, tok, "")
		j = handlers.JobDetailJSON{}
		mustJSON(t, body, &j)
		return j.ReasonCode != ""
	}) {
		t.Fatalf("no explanation after 10s: %s", body)
	}
	if j.Position == nil || *j.Position != 1 || !strings.Contains(j.Reason, "8") {
		t.Fatalf("explanation %+v", j.Job)
	}

	// Release the first lease (by the caller's own name): the 8-GPU lease starts.
	if status, body = s.Do(t, "POST", "/api/v1/cluster/gpu-release", tok, `{"job_id":"run-a"}`); status != 200 || !contains(body, `"state":"completed"`) {
		t.Fatalf("release: %d %s", status, body)
	}
	if !eventually(10*time.Second, func() bool {
		_, body = s.Do(t, "GET", waiting.Poll, tok, "")
		j = handlers.JobDetailJSON{}
		mustJSON(t, body, &j)
		return j.State == "running"
	}) {
		t.Fatalf("the waiting lease did not start within 10s of the release: %s", body)
	}
	if len(j.GPUs) != 8 {
		t.Fatalf("running with %d GPUs", len(j.GPUs))
	}
	var states []string
	for _, e := range j.Events {
		states = append(states, e.ToState)
	}
	if strings.Join(states, ",") != "queued,scheduled,allocating,running" {
		t.Fatalf("events %v", states)
	}
	// Releasing twice is harmless.
	if status, _ = s.Do(t, "POST", "/api/v1/cluster/gpu-release", tok, `{"job_id":"run-a"}`); status != 200 {
		t.Fatalf("second release: %d", status)
	}
}

func TestCancelPriorityAndOwnership(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, _ := s.UserToken(t, models.RoleMember)
	bo, _ := s.UserToken(t, models.RoleMember)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	// Hold every GPU so the next jobs stay queued.
	if status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", ana, `{"gpu_count":8,"timeout_s":20}`); status != 200 {
		t.Fatalf("hold all: %d %s", status, body)
	}
	_, body := s.Do(t, "POST", "/api/v1/queue/submit", ana, `{"gpu_count":1,"executor":"lease"}`)
	var j api.Job
	mustJSON(t, body, &j)
	path := fmt.Sprintf("/api/v1/queue/%d", j.ID)

	tests := []struct {
		name, method, path, token, body string
		status                          int
	}{
		{"another member cannot see it", "PATCH", path + "/priority", bo, `{"priority":"high"}`, 404},
		{"another member cannot cancel it", "DELETE", path, bo, "", 404},
		{"owner raises priority", "PATCH", path + "/priority", ana, `{"priority":"high"}`, 200},
		{"owner cannot use critical", "PATCH", path + "/priority", ana, `{"priority":"critical"}`, 403},
		{"admin can", "PATCH", path + "/priority", admin, `{"priority":4}`, 200},
		{"admin cancels", "DELETE", path, admin, "", 200},
		{"cancel twice is a conflict", "DELETE", path, ana, "", 409},
		{"no such job", "DELETE", "/api/v1/queue/999999", ana, "", 404},
		{"not a number", "DELETE", "/api/v1/queue/abc", ana, "", 400},
	}
	for _, tc := range tests {
		status, body := s.Do(t, tc.method, tc.path, tc.token, tc.body)
		if status != tc.status {
			t.Fatalf("%s: status %d, want %d: %s", tc.name, status, tc.status, body)
		}
	}
	got, _ := models.GetJob(context.Background(), s.DB.Bun, j.ID)
	if got.State != models.JobCanceled || got.Priority != 4 {
		t.Fatalf("job after the table: %s priority %d", got.State, got.Priority)
	}
}

func TestOrchestratorControls(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	member, _ := s.UserToken(t, models.RoleMember)
	admin, adminUser := s.UserToken(t, models.RoleAdmin)
	tests := []struct {
		name, method, path, token, body string
		status                          int
	}{
		{"members read the status", "GET", "/api/v1/orchestrator/status", member, "", 200},
		{"members read the policies", "GET", "/api/v1/orchestrator/policies", member, "", 200},
		{"members cannot stop scheduling", "POST", "/api/v1/orchestrator/stop", member, "", 403},
		{"members cannot change policy", "PUT", "/api/v1/orchestrator/policies", member, `{"preset":"fcfs"}`, 403},
		{"unknown preset", "PUT", "/api/v1/orchestrator/policies", admin, `{"preset":"random"}`, 400},
		{"invalid policy", "PUT", "/api/v1/orchestrator/policies", admin, `{"policy":"lottery","default_duration":"1h"}`, 400},
		{"a preset", "PUT", "/api/v1/orchestrator/policies", admin, `{"preset":"priority-backfill"}`, 200},
		{"admin stops", "POST", "/api/v1/orchestrator/stop", admin, "", 200},
	}
	for _, tc := range tests {
		status, body := s.Do(t, tc.method, tc.path, tc.token, tc.body)
		if status != tc.status {
			t.Fatalf("%s: status %d, want %d: %s", tc.name, status, tc.status, body)
		}
	}
	// Paused: a lease waits, and says why.
	status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", member, `{"gpu_count":1,"timeout_s":1}`)
	if status != 202 {
		t.Fatalf("allocate while paused: %d %s", status, body)
	}
	var waiting api.Job
	mustJSON(t, body, &waiting)
	// The pass may not have explained it before the 1s timeout: ask until it has.
	waitFor(t, "the waiting lease's explanation", func() bool {
		if waiting.ReasonCode == "" {
			_, body = s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d", waiting.ID), member, "")
			waiting = api.Job{}
			mustJSON(t, body, &waiting)
		}
		return waiting.ReasonCode != ""
	})
	if waiting.ReasonCode != "paused" {
		t.Fatalf("while paused, reason %q: %s", waiting.ReasonCode, body)
	}
	// Resumed: it starts.
	if status, body = s.Do(t, "POST", "/api/v1/orchestrator/start", admin, ""); status != 200 || !contains(body, `"running":true`) {
		t.Fatalf("start: %d %s", status, body)
	}
	var state string
	if !eventually(10*time.Second, func() bool {
		j, _ := models.GetJob(context.Background(), s.DB.Bun, waiting.ID)
		state = j.State
		return state == models.JobRunning
	}) {
		t.Fatalf("lease did not start after resuming: %s", state)
	}
	// Changes were audited.
	var actions []string
	if err := s.DB.Bun.NewSelect().Model((*models.AuditEntry)(nil)).Column("action").Where("actor_user_id = ?", adminUser.ID).
		OrderExpr("id").Scan(context.Background(), &actions); err != nil {
		t.Fatal(err)
	}
	if strings.Join(actions, ",") != "orchestrator.policies,orchestrator.stop,orchestrator.start" {
		t.Fatalf("audit %v", actions)
	}
}
