package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// startIdleNode runs one fake node agent whose GPUs show no use unless a
// process runs: a lease holds GPUs at 0 %.
func startIdleNode(t *testing.T, s *testserver.Server, spec string) {
	t.Helper()
	fs, err := gpu.ParseFakeSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	tok, _ := s.NodeToken(t, "idle-1")
	a := &node.Agent{Client: apiclient.New(s.URL, tok), GPUs: gpu.NewFake("idle-1", fs), Hostname: "idle-1", Logger: s.Logger,
		Interval: 200 * time.Millisecond, StateDir: t.TempDir()}
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "the node to register", func() bool {
		var n int
		_ = s.DB.Bun.NewRaw("SELECT count(*) FROM gpus").Scan(t.Context(), &n)
		return n == fs.GPUsPerNode
	})
}

// putIdlePolicy sets the idle keys of the policy in force, keeping the rest.
func putIdlePolicy(t *testing.T, s *testserver.Server, adminTok string, idle map[string]any) {
	t.Helper()
	_, b := s.Do(t, "GET", "/api/v1/orchestrator/policies", adminTok, "")
	var cur map[string]any
	mustJSON(t, b, &cur)
	for k, v := range idle {
		cur[k] = v
	}
	body, _ := json.Marshal(cur)
	if st, b := s.Do(t, "PUT", "/api/v1/orchestrator/policies", adminTok, string(body)); st != 200 {
		t.Fatalf("put policy: %d %s", st, b)
	}
}

// End to end: a lease holds 2 GPUs at 0 %; with idle_after and idle_grace
// short, the owner gets gpu.idle, then gpu.reclaimed; the job is canceled
// with reason "reclaimed: idle for …" and the queued job gets the GPUs.
func TestIdleReclaimEndToEnd(t *testing.T) {
	t.Parallel()
	s := testserver.New(t) // the idle policy runs every 500 ms there
	startIdleNode(t, s, "1x2:H100-80GB")
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	putIdlePolicy(t, s, adminTok, map[string]any{"idle_action": "release", "idle_after": "1s", "idle_grace": "3s"})

	tok, owner := s.UserToken(t, models.RoleMember)
	recv := newWebhookReceiver(t, func(int32) int { return 200 })
	ch := addChannel(t, s, tok, `{"type":"webhook","url":"`+recv.URL+`"}`)
	recv.secret.Store(ch.Secret)
	st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"job_id":"notebook","gpu_count":2,"timeout_s":20}`)
	if st != 200 {
		t.Fatalf("allocate: %d %s", st, b)
	}
	var lease api.Allocation
	mustJSON(t, b, &lease)
	other, _ := s.UserToken(t, models.RoleMember)
	st, b = s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", other, `{"job_id":"waiting","gpu_count":2,"timeout_s":0.2}`)
	if st != 202 {
		t.Fatalf("the second lease should wait: %d %s", st, b)
	}
	var waiting api.Job
	mustJSON(t, b, &waiting)

	idle := recv.next(t, models.EventGPUIdle, 15*time.Second)
	if !idle.SignatureOK || idle.Payload.Idle == nil || idle.Payload.Idle.ReclaimAt == nil || idle.Payload.Job.GPUCount != 2 {
		t.Fatalf("gpu.idle %+v", idle.Payload)
	}
	// The owner's job page shows the warning with the countdown.
	page := s.Login(t, owner.Email)
	if _, body := fetchPage(t, s, page, fmt.Sprintf("/jobs/%d", idle.Payload.Job.ID)); !strings.Contains(body, `data-testid="idle-countdown"`) {
		t.Errorf("the job page shows no idle countdown:\n%s", body)
	}
	if _, body := fetchPage(t, s, page, "/fragments/cluster"); !strings.Contains(body, `data-field="reclaim"`) {
		t.Errorf("the tiles do not say when the GPUs go back:\n%s", body)
	}
	gone := recv.next(t, models.EventGPUReclaimed, 15*time.Second)
	if !strings.HasPrefix(gone.Payload.Reason, "reclaimed: idle for ") {
		t.Fatalf("gpu.reclaimed reason %q", gone.Payload.Reason)
	}
	var j handlers.JobDetailJSON
	_, b = s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d", gone.Payload.Job.ID), tok, "")
	mustJSON(t, b, &j)
	if j.State != models.JobCanceled {
		t.Fatalf("reclaimed job state %q", j.State)
	}
	evs, err := models.JobEvents(t.Context(), s.DB.Bun, gone.Payload.Job.ID)
	if err != nil || !strings.HasPrefix(evs[len(evs)-1].Reason, "reclaimed: idle for ") {
		t.Fatalf("last event %+v (%v)", evs[len(evs)-1], err)
	}
	waitFor(t, "the queued lease to get the GPUs", func() bool {
		_, b := s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d", waiting.ID), other, "")
		return strings.Contains(string(b), `"state":"running"`)
	})
}

// A job's own idle_ok opt-out is refused while the policy forbids it and
// honoured once allowed.
func TestIdleOKOptOut(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	tok, _ := s.UserToken(t, models.RoleMember)
	st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":1,"timeout_s":5}`)
	if st != 200 {
		t.Fatalf("allocate: %d %s", st, b)
	}
	var lease api.Allocation
	mustJSON(t, b, &lease)
	path := fmt.Sprintf("/api/v1/jobs/%d/idle", lease.ID)
	if st, b := s.Do(t, "PUT", path, tok, `{"idle_ok":true}`); st != 409 {
		t.Fatalf("opt-out while forbidden: %d %s", st, b)
	}
	putIdlePolicy(t, s, adminTok, map[string]any{"idle_action": "warn", "idle_after": "1h", "idle_ok_allowed": true})
	if st, b := s.Do(t, "PUT", path, tok, `{"idle_ok":true}`); st != 200 || !strings.Contains(string(b), `"idle_ok_honoured":true`) {
		t.Fatalf("opt-out: %d %s", st, b)
	}
}
