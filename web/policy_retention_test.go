package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The policy's retention section is set through PUT
// /api/v1/orchestrator/policies: ages in days or Go durations, those left
// out shown with their defaults, and an age that would wipe history by a
// typo, an audit log kept less long than the rest, or an age that is not
// one refused with a 400 that says what to change, the policy unchanged.
func TestPolicyRetention(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	retention := func() map[string]string {
		t.Helper()
		st, body := s.Do(t, "GET", "/api/v1/orchestrator/policies", admin, "")
		if st != 200 {
			t.Fatalf("GET policies: %d %s", st, body)
		}
		var out struct {
			Retention map[string]string `json:"retention"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		return out.Retention
	}
	defaults := map[string]string{"idempotency_keys": "1d", "job_events": "90d", "node_commands": "90d",
		"notifications": "30d", "audit_log": "400d"}
	if d := cmp.Diff(defaults, retention()); d != "" {
		t.Fatalf("retention of the default policy (-want +got):\n%s", d)
	}
	put := func(section string) (int, string) {
		st, body := s.Do(t, "PUT", "/api/v1/orchestrator/policies", admin,
			`{"policy": "las", "default_duration": "4h", "fair_share": {"half_life": "168h", "max_age": "168h"},
			 "retention": `+section+`}`)
		return st, string(body)
	}
	for name, tc := range map[string]struct{ section, says string }{
		"90s typed for 90d":            {`{"job_events": "90s"}`, "retention.job_events is 1m30s; it must be at least 1d (leave it out for 90d)"},
		"audit kept less long":         {`{"audit_log": "60d"}`, "retention.audit_log is 60d, shorter than retention.job_events (90d)"},
		"an age in words":              {`{"notifications": "a month"}`, `\"a month\" is not an age like 90d (days) or 36h`},
		"a negative age":               {`{"idempotency_keys": "-1h"}`, "retention.idempotency_keys must not be negative"},
		"an age of a fraction of days": {`{"job_events": "1.5d"}`, "is not an age like 90d"},
	} {
		st, body := put(tc.section)
		if st != 400 || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %s; want 400 saying %q", name, st, body, tc.says)
		}
	}
	if d := cmp.Diff(defaults, retention()); d != "" {
		t.Fatalf("retention after refused changes (-want +got):\n%s", d)
	}
	if st, body := put(`{"job_events": "30d", "idempotency_keys": "36h"}`); st != 200 {
		t.Fatalf("PUT: %d %s", st, body)
	}
	want := map[string]string{"idempotency_keys": "36h0m0s", "job_events": "30d", "node_commands": "90d",
		"notifications": "30d", "audit_log": "400d"}
	if d := cmp.Diff(want, retention()); d != "" {
		t.Errorf("retention after the change (-want +got):\n%s", d)
	}
}
