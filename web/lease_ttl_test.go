package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// apiError is an error answer.
type apiError struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

func leaseJob(t testing.TB, s *testserver.Server, id int64) *models.Job {
	t.Helper()
	j, err := models.GetJob(context.Background(), s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func liveAllocations(t testing.TB, s *testserver.Server, id int64) int {
	t.Helper()
	n, err := s.DB.Bun.NewSelect().Model((*models.Allocation)(nil)).Where("job_id = ? AND released_at IS NULL", id).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// expireLeasesAt runs the lease expiry sweep as if the server's clock read at.
func expireLeasesAt(t testing.TB, s *testserver.Server, at time.Time) {
	t.Helper()
	d := *s.Deps
	d.Now = func() time.Time { return at }
	if err := jobs.ExpireLeases(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

// Every lease has a TTL: the policy's default when none is asked for; one
// over the policy's cap is refused naming the cap, which an admin sets.
func TestLeaseTTLDefaultAndCap(t *testing.T) {
	t.Parallel()
	s := withNode(t, 2)
	tok, _ := s.UserToken(t, models.RoleMember)
	admin, _ := s.UserToken(t, models.RoleAdmin)

	status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":1,"timeout_s":20}`)
	if status != 200 {
		t.Fatalf("allocate: %d %s", status, body)
	}
	var a api.Allocation
	mustJSON(t, body, &a)
	j := leaseJob(t, s, a.ID)
	if j.LeaseTTLS == nil || *j.LeaseTTLS != 8*3600 || j.LeaseConfirmedAt == nil ||
		!j.LeaseExpiresAt.Equal(j.LeaseConfirmedAt.Add(8*time.Hour)) || a.LeaseExpiresAt == nil || !a.LeaseExpiresAt.Equal(*j.LeaseExpiresAt) {
		t.Fatalf("default TTL: ttl %v, confirmed %v, expires %v (answered %v); want 8h from the confirmed grant",
			j.LeaseTTLS, j.LeaseConfirmedAt, j.LeaseExpiresAt, a.LeaseExpiresAt)
	}

	refusals := map[string]struct {
		body, code, says string
	}{
		"over the default cap": {`{"gpu_count":1,"ttl_s":604801}`, "ttl_over_cap", "over the cap of 7d (604800 seconds)"},
		"zero":                 {`{"gpu_count":1,"ttl_s":0}`, "invalid_field", "ttl_s: must be at least 1 second"},
	}
	for name, tc := range refusals {
		status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, tc.body)
		var e apiError
		mustJSON(t, body, &e)
		if status != 400 || e.Code != tc.code || !strings.Contains(e.Error, tc.says) {
			t.Errorf("%s: %d %s; want 400 %s saying %q", name, status, body, tc.code, tc.says)
		}
	}

	// An admin sets the lease rules; an inconsistent set is refused.
	put := func(leases string) (int, []byte) {
		_, cur := s.Do(t, "GET", "/api/v1/orchestrator/policies", admin, "")
		var got map[string]any
		mustJSON(t, cur, &got)
		var l any
		if err := json.Unmarshal([]byte(leases), &l); err != nil {
			t.Fatal(err)
		}
		got["leases"] = l
		b, _ := json.Marshal(got)
		return s.Do(t, "PUT", "/api/v1/orchestrator/policies", admin, string(b))
	}
	if status, body := put(`{"default_ttl":"2h","max_ttl":"1h"}`); status != 400 || !contains(body, "leases.default_ttl (2h0m0s) must not exceed leases.max_ttl (1h0m0s)") {
		t.Fatalf("inconsistent lease policy: %d %s", status, body)
	}
	if status, body := put(`{"default_ttl":"30m","max_ttl":"1h"}`); status != 200 {
		t.Fatalf("lease policy: %d %s", status, body)
	}
	status, body = s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":1,"ttl_s":3601}`)
	if status != 400 || !contains(body, "over the cap of 1h (3600 seconds)") || !contains(body, "leases.max_ttl") {
		t.Fatalf("over the admin's cap: %d %s", status, body)
	}
	status, body = s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":1,"timeout_s":20}`)
	mustJSON(t, body, &a)
	if status != 200 || *leaseJob(t, s, a.ID).LeaseTTLS != 1800 {
		t.Fatalf("under the admin's default: %d %s", status, body)
	}
}

// A lease granted after its gpu-allocate answered 202 runs out after the
// policy's confirm_within unless its client learns of the grant: reading
// the job running, asking gpu-allocate again with its Idempotency-Key, or
// renewing it. An admin reading it does not count. Confirmed, it runs for
// its whole TTL; renewed, for what the renewal asked.
func TestUnconfirmedGrantIsReleased(t *testing.T) {
	t.Parallel()
	s := withNode(t, 5)
	tok, _ := s.UserToken(t, models.RoleMember)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"job_id":"holder","gpu_count":5,"timeout_s":20}`)
	if status != 200 {
		t.Fatalf("holder: %d %s", status, body)
	}
	var holder api.Allocation
	mustJSON(t, body, &holder)

	names := []string{"never", "read by an admin", "read by its owner", "asked again", "renewed"}
	ids := map[string]int64{}
	for _, name := range names {
		status, body := doKey(t, s, "POST", "/api/v1/cluster/gpu-allocate", tok, "key-"+name, fmt.Sprintf(`{"job_id":%q,"gpu_count":1,"timeout_s":0}`, name))
		if status != http.StatusAccepted {
			t.Fatalf("%s: %d %s", name, status, body)
		}
		var j api.Job
		mustJSON(t, body, &j)
		ids[name] = j.ID
	}
	if status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-release", tok, fmt.Sprintf(`{"job_id":%d}`, holder.ID)); status != 200 {
		t.Fatalf("release: %d %s", status, body)
	}
	// Granted by the next pass; read from the database, which confirms nothing.
	var granted time.Time
	waitFor(t, "every lease granted", func() bool {
		for _, id := range ids {
			j := leaseJob(t, s, id)
			if j.State != models.JobRunning {
				return false
			}
			granted = *j.StartedAt
		}
		return true
	})
	for name, id := range ids {
		j := leaseJob(t, s, id)
		if j.LeaseConfirmedAt != nil || !j.LeaseExpiresAt.Equal(j.StartedAt.Add(2*time.Minute)) {
			t.Fatalf("%s granted: confirmed %v, expires %v; want unconfirmed, 2m after the grant", name, j.LeaseConfirmedAt, j.LeaseExpiresAt)
		}
	}

	path := func(name string) string { return fmt.Sprintf("/api/v1/jobs/%d", ids[name]) }
	if status, body := s.Do(t, "GET", path("read by an admin"), admin, ""); status != 200 {
		t.Fatalf("admin read: %d %s", status, body)
	}
	status, body = s.Do(t, "GET", path("read by its owner"), tok, "")
	var read handlers.JobDetailJSON
	mustJSON(t, body, &read)
	if status != 200 || read.LeaseConfirmedAt == nil || !read.LeaseExpiresAt.Equal(read.LeaseConfirmedAt.Add(8*time.Hour)) {
		t.Fatalf("owner read: %d %s", status, body)
	}
	status, body = doKey(t, s, "POST", "/api/v1/cluster/gpu-allocate", tok, "key-asked again", `{"job_id":"asked again","gpu_count":1,"timeout_s":0}`)
	var again api.Allocation
	mustJSON(t, body, &again)
	if status != 200 || again.ID != ids["asked again"] || len(again.GPUs) != 1 {
		t.Fatalf("asked again: %d %s", status, body)
	}
	if status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-renew", tok, `{"job_id":"renewed","ttl_s":3600}`); status != 200 {
		t.Fatalf("renew: %d %s", status, body)
	}

	// Past the confirmation window: the grants nobody learned of end.
	expireLeasesAt(t, s, granted.Add(2*time.Minute+time.Second))
	for _, name := range names {
		j := leaseJob(t, s, ids[name])
		switch name {
		case "never", "read by an admin":
			if j.State != models.JobCompleted || liveAllocations(t, s, j.ID) != 0 {
				t.Fatalf("%s: %s with %d GPUs, want completed and released", name, j.State, liveAllocations(t, s, j.ID))
			}
			assertTimelineSays(t, s, j.ID, models.JobCompleted, "its client never confirmed the grant within 2m (leases.confirm_within)")
		default:
			want := 8 * time.Hour
			if name == "renewed" {
				want = time.Hour
			}
			if j.State != models.JobRunning || j.LeaseConfirmedAt == nil || !j.LeaseExpiresAt.Equal(j.LeaseConfirmedAt.Add(want)) {
				t.Fatalf("%s: %s, confirmed %v, expires %v; want running until %s after its confirmation", name, j.State, j.LeaseConfirmedAt, j.LeaseExpiresAt, want)
			}
		}
	}

	// The renewal's hour runs out; the confirmed 8 hours do not yet.
	renewed := leaseJob(t, s, ids["renewed"])
	expireLeasesAt(t, s, renewed.LeaseExpiresAt.Add(time.Second))
	if j := leaseJob(t, s, renewed.ID); j.State != models.JobCompleted {
		t.Fatalf("renewed lease after its hour: %s", j.State)
	}
	assertTimelineSays(t, s, renewed.ID, models.JobCompleted, "its TTL of 1h ran out without a renewal")
	if j := leaseJob(t, s, ids["read by its owner"]); j.State != models.JobRunning {
		t.Fatalf("confirmed lease after an hour: %s", j.State)
	}
}

// assertTimelineSays checks that job id's move to state says want.
func assertTimelineSays(t testing.TB, s *testserver.Server, id int64, state, want string) {
	t.Helper()
	evs, err := models.JobEvents(context.Background(), s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, e := range evs {
		if e.ToState == state && strings.Contains(e.Reason, want) {
			return
		}
		seen = append(seen, e.ToState+": "+e.Reason)
	}
	t.Fatalf("job %d's timeline has no move to %s saying %q: %q", id, state, want, seen)
}

// gpu-renew: the owner or an admin renews a lease up to the policy's cap;
// what is no lease, a lease a node agent renews itself, and an ended lease
// cannot be renewed.
func TestGPURenew(t *testing.T) {
	t.Parallel()
	s := withNode(t, 2)
	ctx := context.Background()
	ana, anaUser := s.UserToken(t, models.RoleMember)
	bo, _ := s.UserToken(t, models.RoleMember)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	id := func(status int, body []byte) int64 {
		t.Helper()
		var j struct{ ID int64 }
		mustJSON(t, body, &j)
		if j.ID == 0 {
			t.Fatalf("no job: %d %s", status, body)
		}
		return j.ID
	}
	held := id(s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", ana, `{"job_id":"my-run","gpu_count":1,"timeout_s":20}`))
	waiting := id(s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", ana, `{"gpu_count":2,"timeout_s":0}`))
	ended := id(s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", ana, `{"gpu_count":2,"timeout_s":0}`))
	if status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-release", ana, fmt.Sprintf(`{"job_id":%d}`, ended)); status != 200 {
		t.Fatalf("release: %d %s", status, body)
	}
	nodeJob := id(s.Do(t, "POST", "/api/v1/queue/submit", ana, `{"command":"true","workdir":"/","gpu_count":2,"executor":"node"}`))
	if err := models.SetUnixUser(ctx, s.DB.Bun, anaUser.ID, "ana", time.Now()); err != nil {
		t.Fatal(err)
	}
	nodeTok, node := s.NodeToken(t, "gpu-a")
	status, body := s.Do(t, "POST", fmt.Sprintf("/api/v1/nodes/%d/leases", node.ID), nodeTok, `{"pid":4242,"pid_start":99,"unix_user":"ana","gpu_count":2}`)
	var nl struct {
		JobID int64 `json:"job_id"`
	}
	mustJSON(t, body, &nl)
	if status != 201 || nl.JobID == 0 {
		t.Fatalf("node lease: %d %s", status, body)
	}
	watched := nl.JobID

	tests := []struct {
		name, token, body string
		status            int
		code              string
		ttl               int64 // the lease's TTL after a renewal
	}{
		{"over the cap", ana, fmt.Sprintf(`{"job_id":%d,"ttl_s":604801}`, held), 400, "ttl_over_cap", 0},
		{"zero", ana, fmt.Sprintf(`{"job_id":%d,"ttl_s":0}`, held), 400, "invalid_field", 0},
		{"no job", ana, `{"ttl_s":60}`, 400, "invalid_field", 0},
		{"another member's lease", bo, fmt.Sprintf(`{"job_id":%d}`, held), 404, "not_found", 0},
		{"a node job", ana, fmt.Sprintf(`{"job_id":%d}`, nodeJob), 409, "not_a_lease", 0},
		{"a lease its node agent renews", ana, fmt.Sprintf(`{"job_id":%d}`, watched), 409, "watched_lease", 0},
		{"an ended lease", ana, fmt.Sprintf(`{"job_id":%d}`, ended), 409, "bad_state", 0},
		{"the owner, by id", ana, fmt.Sprintf(`{"job_id":%d,"ttl_s":600}`, held), 200, "", 600},
		{"the owner, by name, its own TTL", ana, `{"job_id":"my-run"}`, 200, "", 600},
		{"an admin", admin, fmt.Sprintf(`{"job_id":"%d","ttl_s":1200}`, held), 200, "", 1200},
		{"a waiting lease", ana, fmt.Sprintf(`{"job_id":%d,"ttl_s":900}`, waiting), 200, "", 900},
	}
	for _, tc := range tests {
		before := time.Now()
		status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-renew", tc.token, tc.body)
		if status != tc.status {
			t.Fatalf("%s: %d %s, want %d", tc.name, status, body, tc.status)
		}
		if tc.code != "" {
			var e apiError
			mustJSON(t, body, &e)
			if e.Code != tc.code || e.Error == "" {
				t.Fatalf("%s: %s, want code %s", tc.name, body, tc.code)
			}
			continue
		}
		var j api.Job
		mustJSON(t, body, &j)
		if j.LeaseTTLS == nil || *j.LeaseTTLS != tc.ttl {
			t.Fatalf("%s: %s, want lease_ttl_s %d", tc.name, body, tc.ttl)
		}
		switch j.State {
		case models.JobRunning:
			want := before.Add(time.Duration(tc.ttl) * time.Second)
			if j.LeaseExpiresAt == nil || j.LeaseExpiresAt.Before(want.Add(-time.Second)) || j.LeaseExpiresAt.After(time.Now().Add(time.Duration(tc.ttl)*time.Second)) {
				t.Fatalf("%s: expires %v, want %ds from now", tc.name, j.LeaseExpiresAt, tc.ttl)
			}
		case models.JobQueued:
			if j.LeaseExpiresAt != nil {
				t.Fatalf("%s: a waiting lease expires at %v", tc.name, j.LeaseExpiresAt)
			}
		default:
			t.Fatalf("%s: %s", tc.name, body)
		}
	}
}
