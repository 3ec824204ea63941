package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// agentBody is what gpusched-agent sends with the design's example
// allocation_defaults, asking for the whole 2-GPU node.
const agentBody = `{"monitor":"training_log_monitor","user_region":"us-east-1","job_type":"TRAINING","requirements":{"min_memory_gb":16,"gpu_count":2}}`

// A hold keeps the GPUs free from another user's lease; the owner's next
// lease takes them at once and consumes the hold.
func TestHoldKeepsGPUsForOwnerNextLease(t *testing.T) {
	t.Parallel()
	s := holdServer(t, 2)
	ana, _ := s.UserToken(t, models.RoleMember)
	bo, _ := s.UserToken(t, models.RoleMember)

	h := createHold(t, s, api.AllocatePath, ana, agentBody)
	if h.GPUCount != 2 || h.Monitor != "training_log_monitor" || h.JobType != "TRAINING" || h.MinMemoryGB != 16 {
		t.Fatalf("hold %+v", h)
	}
	if ttl := h.ExpiresAt.Sub(h.CreatedAt); ttl < 14*time.Minute || ttl > 16*time.Minute {
		t.Fatalf("default TTL %v, want 15m", ttl)
	}

	st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", bo, `{"gpu_count":1,"timeout_s":0}`)
	if st != http.StatusAccepted {
		t.Fatalf("bo's lease should wait: %d %s", st, b)
	}
	boJob := decode[api.Job](t, b).ID
	waitFor(t, "bo's lease explained by the hold", func() bool {
		j := job(t, s, bo, boJob)
		return j.ReasonCode == "booked" && strings.Contains(j.Reason, "held by")
	})

	start := time.Now()
	st, b = s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", ana, `{"gpu_count":2,"timeout_s":20}`)
	if st != http.StatusOK {
		t.Fatalf("ana's lease on her hold: %d %s", st, b)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("ana's lease took %v, want at once", took)
	}
	anaJob := decode[struct{ ID int64 }](t, b).ID
	got := holds(t, s, ana)[h.ID]
	if got.State != "consumed" || got.ConsumedByJob == nil || *got.ConsumedByJob != anaJob {
		t.Fatalf("hold after ana's lease: %+v (lease %d)", got, anaJob)
	}
	if j := job(t, s, bo, boJob); j.State != models.JobQueued {
		t.Fatalf("bo's lease %s while ana holds both GPUs", j.State)
	}
	if st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-release", ana, fmt.Sprintf(`{"job_id":"%d"}`, anaJob)); st != http.StatusOK {
		t.Fatalf("release: %d %s", st, b)
	}
	waitFor(t, "bo's lease to start once the consumed hold no longer reserves", func() bool {
		return job(t, s, bo, boJob).State == models.JobRunning
	})
}

func TestHoldValidation(t *testing.T) {
	t.Parallel()
	s := holdServer(t, 8)
	ana, _ := s.UserToken(t, models.RoleMember)
	tests := map[string]struct {
		body, code string
		status     int
	}{
		"unknown field":     {`{"monitor":"m","log_line":"secret"}`, "unknown_field", 400},
		"too many gpus":     {`{"gpu_count":9}`, "invalid_field", 400},
		"no such model":     {`{"gpu_model":"A100"}`, "invalid_field", 400},
		"too much memory":   {`{"requirements":{"min_memory_gb":100}}`, "invalid_field", 400},
		"ttl over the max":  {`{"ttl_s":3600}`, "invalid_field", 400},
		"negative ttl":      {`{"ttl_s":-1}`, "invalid_field", 400},
		"negative gpus":     {`{"gpu_count":-2}`, "invalid_field", 400},
		"long monitor name": {`{"monitor":"` + strings.Repeat("m", 201) + `"}`, "invalid_field", 400},
		"not an object":     {`[1]`, "invalid_json", 400},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, b := s.Do(t, "POST", "/api/v1/holds", ana, tc.body)
			if st != tc.status {
				t.Fatalf("status %d, want %d: %s", st, tc.status, b)
			}
			if _, code := testserver.APIError(t, b); code != tc.code {
				t.Fatalf("code %q, want %q", code, tc.code)
			}
		})
	}
	if st, b := s.Do(t, "POST", api.AllocatePath, "", `{}`); st != http.StatusUnauthorized {
		t.Fatalf("no token: %d %s", st, b)
	}
	if n := len(holds(t, s, ana)); n != 0 {
		t.Fatalf("%d holds after refused requests", n)
	}
}

func TestHoldLimitAndQuota(t *testing.T) {
	t.Parallel()
	s := holdServer(t, 8)
	ana, _ := s.UserToken(t, models.RoleMember)
	capped, cu := s.UserToken(t, models.RoleMember)
	if _, err := s.DB.Bun.ExecContext(context.Background(), `UPDATE users SET gpu_cap = 3 WHERE id = ?`, cu.ID); err != nil {
		t.Fatal(err)
	}
	createHold(t, s, "/api/v1/holds", ana, `{"monitor":"a"}`)
	createHold(t, s, "/api/v1/holds", ana, `{"monitor":"b"}`)
	st, b := s.Do(t, "POST", "/api/v1/holds", ana, `{"monitor":"c"}`)
	if _, code := testserver.APIError(t, b); st != http.StatusConflict || code != "hold_limit" {
		t.Fatalf("third hold: %d %s", st, b)
	}

	createHold(t, s, "/api/v1/holds", capped, `{"gpu_count":2}`)
	st, b = s.Do(t, "POST", "/api/v1/holds", capped, `{"gpu_count":2}`)
	msg, code := testserver.APIError(t, b)
	if st != http.StatusConflict || code != "quota_exceeded" || !strings.Contains(msg, "2 of 3 GPUs") {
		t.Fatalf("hold over the cap: %d %s", st, b)
	}
	createHold(t, s, "/api/v1/holds", capped, `{"gpu_count":1}`)
}

func TestHoldIdempotencyKey(t *testing.T) {
	t.Parallel()
	s := holdServer(t, 8)
	ana, _ := s.UserToken(t, models.RoleMember)
	st1, _, b1 := doKey(t, s, "POST", api.AllocatePath, ana, "k1", `{"monitor":"m"}`)
	st2, hdr, b2 := doKey(t, s, "POST", api.AllocatePath, ana, "k1", `{"monitor":"m"}`)
	if st1 != http.StatusAccepted || st2 != http.StatusAccepted || hdr.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: %d then %d (replayed %q)", st1, st2, hdr.Get("Idempotent-Replayed"))
	}
	if diff := cmp.Diff(decode[api.Hold](t, b1), decode[api.Hold](t, b2)); diff != "" {
		t.Fatalf("replayed answer differs (-first +retry):\n%s", diff)
	}
	if n := len(holds(t, s, ana)); n != 1 {
		t.Fatalf("%d holds after a retried request, want 1", n)
	}
	st, _, b := doKey(t, s, "POST", api.AllocatePath, ana, "k1", `{"monitor":"other"}`)
	if _, code := testserver.APIError(t, b); st != http.StatusUnprocessableEntity || code != "idempotency_key_reused" {
		t.Fatalf("key reused with another body: %d %s", st, b)
	}
}
