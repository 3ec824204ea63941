package handlers_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Canceling a hold gives its GPUs to the job that waited for them; only the
// owner (or an admin) may cancel, and only once.
func TestHoldCancel(t *testing.T) {
	t.Parallel()
	s := holdServer(t, 1)
	ana, _ := s.UserToken(t, models.RoleMember)
	bo, _ := s.UserToken(t, models.RoleMember)
	h := createHold(t, s, "/api/v1/holds", ana, `{"monitor":"m"}`)
	st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", bo, `{"gpu_count":1,"timeout_s":0}`)
	if st != http.StatusAccepted {
		t.Fatalf("bo's lease should wait: %d %s", st, b)
	}
	boJob := decode[api.Job](t, b).ID

	path := fmt.Sprintf("/api/v1/holds/%d", h.ID)
	if st, b := s.Do(t, "DELETE", path, bo, ""); st != http.StatusNotFound {
		t.Fatalf("bo cancels ana's hold: %d %s", st, b)
	}
	st, b = s.Do(t, "DELETE", path, ana, "")
	if st != http.StatusOK || decode[api.Hold](t, b).State != "canceled" {
		t.Fatalf("cancel: %d %s", st, b)
	}
	st, b = s.Do(t, "DELETE", path, ana, "")
	if _, code := testserver.APIError(t, b); st != http.StatusConflict || code != "bad_state" {
		t.Fatalf("cancel twice: %d %s", st, b)
	}
	waitFor(t, "bo's lease to start after the cancel", func() bool {
		return job(t, s, bo, boJob).State == models.JobRunning
	})
}

// An unused hold expires at its TTL (River's sweep), its GPUs go to the
// waiting job, and admins see it in the hit rate.
func TestHoldExpiresAndCounts(t *testing.T) {
	t.Parallel()
	s := holdServer(t, 1)
	ana, au := s.UserToken(t, models.RoleMember)
	bo, _ := s.UserToken(t, models.RoleMember)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	h := createHold(t, s, "/api/v1/holds", ana, `{"monitor":"m","ttl_s":1}`)
	st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", bo, `{"gpu_count":1,"timeout_s":0}`)
	if st != http.StatusAccepted {
		t.Fatalf("bo's lease should wait: %d %s", st, b)
	}
	boJob := decode[api.Job](t, b).ID
	waitFor(t, "the hold to expire and bo's lease to start", func() bool {
		return holds(t, s, ana)[h.ID].State == "expired" && job(t, s, bo, boJob).State == models.JobRunning
	})

	if st, b := s.Do(t, "GET", "/api/v1/holds/stats", ana, ""); st != http.StatusForbidden {
		t.Fatalf("member reads stats: %d %s", st, b)
	}
	st, b = s.Do(t, "GET", "/api/v1/holds/stats", admin, "")
	if st != http.StatusOK {
		t.Fatalf("stats: %d %s", st, b)
	}
	stats := decode[api.HoldStats](t, b)
	if len(stats.Users) != 1 {
		t.Fatalf("stats %+v", stats)
	}
	u := stats.Users[0]
	if u.Email != au.Email || u.Total != 1 || u.Expired != 1 || u.Consumed != 0 || u.HitRate != 0 || u.HeldIdleS < 0.9 || u.HeldIdleS > 1.1 {
		t.Fatalf("ana's stats %+v", u)
	}
}
