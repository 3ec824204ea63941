package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// GET and PUT /api/v1/orchestrator/policies take the same shape: what GET
// answers goes back through PUT unchanged (curl GET | PUT), and so does it
// with a key changed (read, modify, write); PUT answers what GET will. The
// presets are listed apart, each explained.
func TestPolicyGetPutRoundTrip(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	get := func() map[string]any {
		t.Helper()
		st, body := s.Do(t, "GET", "/api/v1/orchestrator/policies", admin, "")
		if st != 200 {
			t.Fatalf("GET policies: %d %s", st, body)
		}
		var out map[string]any
		mustJSON(t, body, &out)
		return out
	}
	put := func(p map[string]any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(p)
		st, body := s.Do(t, "PUT", "/api/v1/orchestrator/policies", admin, string(b))
		if st != 200 {
			t.Fatalf("PUT what GET gave: %d %s", st, body)
		}
		var out map[string]any
		mustJSON(t, body, &out)
		return out
	}
	first := get()
	if d := cmp.Diff(first, put(first)); d != "" {
		t.Errorf("PUT of GET's answer changed it (-GET +PUT):\n%s", d)
	}
	first["policy"], first["backfill"] = "fairshare", false
	first["booking_limits"] = map[string]any{"max_live": 9.0, "max_length": "24h0m0s"}
	answered := put(first)
	if d := cmp.Diff(first, answered); d != "" {
		t.Errorf("PUT's answer (-sent +answered):\n%s", d)
	}
	if d := cmp.Diff(answered, get()); d != "" {
		t.Errorf("GET after PUT (-PUT +GET):\n%s", d)
	}
	stored, err := models.SchedulerConfig(t.Context(), s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Policy != "fairshare" || stored.BookingLimits.MaxLive != 9 {
		t.Errorf("stored policy %s, booking_limits %+v", stored.Policy, stored.BookingLimits)
	}

	st, body := s.Do(t, "GET", "/api/v1/orchestrator/policies/presets", admin, "")
	if st != 200 {
		t.Fatalf("GET presets: %d %s", st, body)
	}
	var presets struct {
		Presets []struct {
			Name, Summary string
			UseWhen       string `json:"use_when"`
			Policy        scheduler.Config
		}
	}
	mustJSON(t, body, &presets)
	var names []string
	for _, p := range presets.Presets {
		want, _ := scheduler.Preset(p.Name)
		if p.Summary == "" || p.UseWhen == "" || !cmp.Equal(want, p.Policy) {
			t.Errorf("preset %s: summary %q, policy differs from the preset: %s", p.Name, p.Summary, cmp.Diff(want, p.Policy))
		}
		names = append(names, p.Name)
	}
	if len(names) != len(scheduler.PresetNames()) || names[0] != "default" {
		t.Errorf("presets %v, want all %d, the default first", names, len(scheduler.PresetNames()))
	}
}

// The booking limits the policy sets replace the server's defaults (its
// environment) at once: GPUs in one booking, length, live bookings; left
// out, the defaults hold again.
func TestPolicyBookingLimits(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	member, _ := s.UserToken(t, models.RoleMember)
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)
	book := func(gpus int, from, hours int) (int, string) {
		body := fmt.Sprintf(`{"gpu_count":%d,"starts_at":%q,"ends_at":%q}`, gpus,
			day.Add(time.Duration(from)*time.Hour).Format(time.RFC3339), day.Add(time.Duration(from+hours)*time.Hour).Format(time.RFC3339))
		st, b := s.Do(t, "POST", "/api/v1/bookings", member, body)
		return st, string(b)
	}
	if st, b := s.Do(t, "PUT", "/api/v1/orchestrator/policies", admin,
		`{"policy":"las","default_duration":"4h","fair_share":{"half_life":"168h","max_age":"168h"},"booking_limits":{"max_gpus":2,"max_length":"2h","max_live":1}}`); st != 200 {
		t.Fatalf("PUT booking limits: %d %s", st, b)
	}
	for _, tc := range []struct {
		name              string
		gpus, from, hours int
		status            int
		says              string
	}{
		{"3 GPUs over max_gpus 2", 3, 0, 1, 422, "at most 2 GPUs"},
		{"3 hours over max_length 2h", 1, 0, 3, 422, "2h"},
		{"within the limits", 2, 0, 2, 201, ""},
		{"a second over max_live 1", 1, 4, 1, 409, "the most allowed is 1"},
	} {
		if st, b := book(tc.gpus, tc.from, tc.hours); st != tc.status || !strings.Contains(b, tc.says) {
			t.Errorf("%s: %d %s, want %d saying %q", tc.name, st, b, tc.status, tc.says)
		}
	}
	if st, b := s.Do(t, "PUT", "/api/v1/orchestrator/policies", admin, `{"preset":"default"}`); st != 200 {
		t.Fatalf("PUT the default: %d %s", st, b)
	}
	if st, b := book(3, 4, 3); st != 201 {
		t.Errorf("with the server's defaults again, 3 GPUs for 3 hours: %d %s", st, b)
	}
}
