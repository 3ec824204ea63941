package web_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// snakeKey is the one casing of the JSON API: lower case words joined by
// underscores (digits allowed after the first letter).
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// nonSnakeKeys walks a decoded JSON document and returns the path of every
// object key that is not snake_case. Maps keyed by data (env variables,
// label selectors) are named in free and skipped.
func nonSnakeKeys(v any, path string, free map[string]bool, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			p := path + "." + k
			if !snakeKey.MatchString(k) {
				*out = append(*out, p)
			}
			if free[k] {
				continue
			}
			nonSnakeKeys(child, p, free, out)
		}
	case []any:
		for i, child := range x {
			nonSnakeKeys(child, fmt.Sprintf("%s[%d]", path, i), free, out)
		}
	}
}

// TestAPISpeaksSnakeCase reads every JSON route of /api/v1 with state in
// every shape (a running job, a queued one, a booking, a hold) and fails on
// any key in another casing.
func TestAPISpeaksSnakeCase(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	member, _ := s.UserToken(t, models.RoleMember)

	var posted []string
	post := func(path, token, body string) []byte {
		t.Helper()
		st, b := s.Do(t, "POST", path, token, body)
		if st/100 != 2 {
			t.Fatalf("POST %s: %d %s", path, st, b)
		}
		posted = append(posted, path)
		return b
	}
	running := post("/api/v1/queue/submit", member, `{"gpu_count":8,"executor":"lease","estimated_duration":"2h","env":{"MY_Var":"x"}}`)
	post("/api/v1/queue/submit", member, `{"gpu_count":2,"executor":"lease","estimated_duration":"1h"}`)
	from := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Hour)
	post("/api/v1/bookings", member, fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q,"note":"demo"}`,
		from.Format(time.RFC3339), from.Add(2*time.Hour).Format(time.RFC3339)))
	var job struct {
		ID int64 `json:"id"`
	}
	mustJSON(t, running, &job)

	routes := []struct{ path, token string }{
		{"/api/v1/me", member},
		{"/api/v1/cluster/gpu-status", member},
		{"/api/v1/cluster/idle-gpus", member},
		{"/api/v1/queue", member},
		{"/api/v1/queue/statistics", member},
		{fmt.Sprintf("/api/v1/jobs/%d", job.ID), member},
		{fmt.Sprintf("/api/v1/jobs/%d/logs", job.ID), member},
		{"/api/v1/holds", member},
		{"/api/v1/holds/stats", admin},
		{"/api/v1/bookings", member},
		{"/api/v1/orchestrator/status", member},
		{"/api/v1/orchestrator/policies", member},
		{"/api/v1/orchestrator/policies/presets", member},
		{"/api/v1/usage?range=day", member},
		{"/api/v1/history", member},
		{"/api/v1/accounting?by=team", admin},
	}
	free := map[string]bool{"env": true, "node_selector": true, "presets": true, "rates": true}
	var bad []string
	for _, r := range routes {
		st, body := s.Do(t, "GET", r.path, r.token, "")
		if st != 200 {
			t.Errorf("GET %s: %d %s", r.path, st, body)
			continue
		}
		var doc any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Errorf("GET %s: not JSON: %v", r.path, err)
			continue
		}
		nonSnakeKeys(doc, r.path, free, &bad)
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Fatalf("keys not in snake_case (after POST to %s):\n%s", strings.Join(posted, ", "), strings.Join(bad, "\n"))
	}
}
