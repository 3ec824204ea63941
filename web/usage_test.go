package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sortStrings compares string slices as sets.
var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })

func totalNames(ts []models.GPUHoursTotal) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// The usage data: sign-in required, ranges validated, a fixed number of
// points, and members see every team but only themselves among users.
func TestUsageData(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	nodeTok, node := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(4)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	// A heartbeat's telemetry becomes history.
	beat := `{"gpus":[{"uuid":"GPU-a-0","utilization_pct":70,"health":"ok"},{"uuid":"GPU-a-1","utilization_pct":30,"health":"ok"}]}`
	if st, body := s.Do(t, "POST", fmt.Sprintf("/api/v1/nodes/%d/heartbeat", node.ID), nodeTok, beat); st != 200 {
		t.Fatalf("heartbeat: %d %s", st, body)
	}
	var samples int
	if err := s.DB.Bun.NewRaw(`SELECT count(*) FROM gpu_samples WHERE node_id = ?`, node.ID).Scan(t.Context(), &samples); err != nil || samples != 2 {
		t.Fatalf("gpu_samples after a heartbeat: %d (%v), want 2", samples, err)
	}
	anaTok, ana := s.UserToken(t, models.RoleMember)
	bobTok, bob := s.UserToken(t, models.RoleMember)
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	for tok, n := range map[string]int{anaTok: 2, bobTok: 1} {
		if st, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, fmt.Sprintf(`{"gpu_count":%d,"timeout_s":10}`, n)); st != 200 && st != 201 {
			t.Fatalf("allocate: %d %s", st, body)
		}
	}

	errs := map[string]struct {
		path, token string
		status      int
		body        string // what the answer must contain
	}{
		"no token":      {"/api/v1/usage", "", 401, `"code":"unauthorized"`},
		"bad range":     {"/api/v1/usage?range=year", anaTok, 400, "range must be day, week or month"},
		"bad node":      {"/api/v1/usage?node=x", anaTok, 400, "node must be a node id"},
		"negative node": {"/api/v1/usage?node=-3", anaTok, 400, "node must be a node id"},
		"unknown node":  {"/api/v1/usage?node=999999", anaTok, 404, `"code":"not_found"`},
		"node token":    {"/api/v1/usage", nodeTok, 403, `"code":"node_token"`},
		// The page's data without a session ends on the sign-in form (redirect followed).
		"page signed out": {"/usage/data", "", 200, `name="next" value="/usage/data"`},
	}
	for name, tc := range errs {
		t.Run(name, func(t *testing.T) {
			st, body := s.Do(t, "GET", tc.path, tc.token, "")
			if st != tc.status || !contains(body, tc.body) {
				t.Fatalf("status %d, want %d with %s: %s", st, tc.status, tc.body, body)
			}
		})
	}

	views := map[string]struct {
		token     string
		wantUsers []string
	}{
		"admin sees every user": {adminTok, []string{ana.Name, bob.Name}},
		"member sees only self": {bobTok, []string{bob.Name}},
	}
	for name, tc := range views {
		t.Run(name, func(t *testing.T) {
			for _, rng := range []string{"day", "week", "month"} {
				st, body := s.Do(t, "GET", "/api/v1/usage?range="+rng, tc.token, "")
				if st != 200 {
					t.Fatalf("%s: %d %s", rng, st, body)
				}
				var u handlers.UsageJSON
				mustJSON(t, body, &u)
				series := map[string]models.Series{"util by node": u.Utilization.ByNode, "util by gpu": u.Utilization.ByGPU,
					"hours by team": u.GPUHours.ByTeam, "hours by user": u.GPUHours.ByUser, "queue length": u.Queue.Length, "queue wait": u.Queue.Wait}
				for sname, ser := range series {
					if len(ser.Times) != 240 || u.Points != 240 {
						t.Errorf("%s %s: %d points, want 240", rng, sname, len(ser.Times))
					}
					for i, v := range ser.Values {
						if len(v) != len(ser.Times) {
							t.Errorf("%s %s line %d: %d values for %d times", rng, sname, i, len(v), len(ser.Times))
						}
					}
				}
				got := totalNames(u.GPUHours.UserTotals)
				if d := cmp.Diff(tc.wantUsers, got, sortStrings); d != "" {
					t.Errorf("%s: users (-want +got):\n%s", rng, d)
				}
				if d := cmp.Diff([]string{"(no team)"}, totalNames(u.GPUHours.TeamTotals)); d != "" {
					t.Errorf("%s: teams (-want +got):\n%s", rng, d)
				}
				if len(u.Utilization.ByGPU.Labels) != 4 || len(u.Utilization.ByNode.Labels) != 1 {
					t.Errorf("%s: utilization lines %v, %v", rng, u.Utilization.ByGPU.Labels, u.Utilization.ByNode.Labels)
				}
			}
		})
	}
}

// The usage page renders its chart frames and tables for a signed-in user,
// and the range picker works as plain links.
func TestUsagePage(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	for _, name := range []string{"gpu-a", "gpu-b"} {
		tok, _ := s.NodeToken(t, name)
		if st, body := s.Do(t, "POST", "/api/v1/nodes/register", tok, registerBodyFor(name, 2)); st != 200 {
			t.Fatalf("register: %d %s", st, body)
		}
	}
	browser := s.Login(t, "ana@example.com")
	page := getPage(t, browser, s.URL+"/usage?range=week")
	for _, want := range []string{`data-chart="util-node"`, `data-chart="hours-team"`, `data-chart="queue-wait"`,
		`data-src="/usage/data?range=week"`, `href="/usage?range=month"`, `aria-current="page">week`,
		"Fair-share standing: teams", "uPlot-1.6.32.iife.min.", "usage.", `<noscript>`,
		`<option value="" selected>all nodes</option>`} {
		if !strings.Contains(page, want) {
			t.Errorf("usage page lacks %q", want)
		}
	}
	resp, err := browser.Get(s.URL + "/usage?range=year")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("range=year: %d, want 400", resp.StatusCode)
	}
	st, body := 0, []byte(nil)
	req, _ := http.NewRequest("GET", s.URL+"/usage/data?range=month", nil)
	if resp, err := browser.Do(req); err == nil {
		st = resp.StatusCode
		body = readAll(t, resp)
		resp.Body.Close()
	}
	if st != 200 || !contains(body, `"points":240`) {
		t.Errorf("/usage/data from the page's session: %d %s", st, body)
	}
}
