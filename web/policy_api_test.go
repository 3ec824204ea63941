package web_test

import (
	"encoding/json"
	"testing"

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
