package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// adminServer starts a server with an admin (the first dev sign-in) and a member.
func adminServer(t *testing.T) (*testserver.Server, *http.Client, *models.User) {
	t.Helper()
	s := testserver.New(t)
	c := s.Login(t, "root@example.com")
	s.Login(t, "mia@example.com")
	mia, err := models.GetUserByEmail(context.Background(), s.DB.Bun, "mia@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return s, c, mia
}

func TestAdminTeamsAndUsers(t *testing.T) {
	t.Parallel()
	s, c, mia := adminServer(t)
	ctx := context.Background()
	root, err := models.GetUserByEmail(ctx, s.DB.Bun, "root@example.com")
	if err != nil {
		t.Fatal(err)
	}

	tests := map[string]struct {
		path   string
		form   url.Values
		status int
		text   string
	}{
		"a team":                   {"/admin/teams", url.Values{"name": {"vision"}, "weight": {"2"}, "gpu_cap": {"8"}}, 303, ""},
		"a bad weight":             {"/admin/teams", url.Values{"name": {"nlp"}, "weight": {"-1"}}, 400, "The weight must be a positive number"},
		"a bad cap":                {"/admin/teams", url.Values{"name": {"nlp"}, "gpu_cap": {"x"}}, 400, "The GPU cap must be a whole number"},
		"no name":                  {"/admin/teams", url.Values{"name": {""}}, 400, "Give the team a name"},
		"demoting oneself":         {fmt.Sprintf("/admin/users/%d", root.ID), url.Values{"role": {"member"}}, 400, "You cannot demote or disable yourself"},
		"an unknown role":          {fmt.Sprintf("/admin/users/%d", mia.ID), url.Values{"role": {"owner"}}, 400, "The role must be admin or member"},
		"an unknown team":          {fmt.Sprintf("/admin/users/%d", mia.ID), url.Values{"role": {"member"}, "team_id": {"999"}}, 400, "That team does not exist"},
		"an unknown user":          {"/admin/users/999", url.Values{"role": {"member"}}, 404, ""},
		"the same team name again": {"/admin/teams", url.Values{"name": {"vision"}}, 409, "exists already"},
	}
	// "a team" first: the duplicate needs it.
	for _, name := range []string{"a team", "a bad weight", "a bad cap", "no name", "demoting oneself", "an unknown role", "an unknown team", "an unknown user", "the same team name again"} {
		tc := tests[name]
		st, body := postAdminForm(t, s, c, tc.path, tc.form)
		if st != tc.status || !strings.Contains(body, tc.text) {
			t.Errorf("%s: %d, want %d with %q", name, st, tc.status, tc.text)
		}
	}
	teams, err := models.ListTeams(ctx, s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	if len(teams) != 1 || teams[0].Name != "vision" || teams[0].FairShareWeight != 2 || teams[0].GPUCap == nil || *teams[0].GPUCap != 8 {
		t.Fatalf("teams after the forms: %+v", teams)
	}
	// Mia joins the team, becomes admin, then is disabled.
	form := url.Values{"role": {"admin"}, "team_id": {fmt.Sprint(teams[0].ID)}, "disabled": {"1"}}
	if st, _ := postAdminForm(t, s, c, fmt.Sprintf("/admin/users/%d", mia.ID), form); st != 303 {
		t.Fatalf("update mia: %d", st)
	}
	got, err := models.GetUser(ctx, s.DB.Bun, mia.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Role != models.RoleAdmin || got.TeamID == nil || *got.TeamID != teams[0].ID || got.DisabledAt == nil {
		t.Fatalf("mia after the update: %+v", got)
	}
	// The team's weight and cap change; the cap can be removed.
	if st, _ := postAdminForm(t, s, c, fmt.Sprintf("/admin/teams/%d", teams[0].ID), url.Values{"weight": {"0.5"}, "gpu_cap": {""}}); st != 303 {
		t.Fatalf("update team: %d", st)
	}
	teams, _ = models.ListTeams(ctx, s.DB.Bun)
	if teams[0].FairShareWeight != 0.5 || teams[0].GPUCap != nil {
		t.Fatalf("team after the update: %+v", teams[0])
	}
	_, page := fetchPage(t, s, c, "/admin/teams")
	if !strings.Contains(page, `data-team="vision"`) {
		t.Fatal("the teams page does not list the team")
	}
	// Each accepted change wrote one audit entry; refused ones none.
	counts := map[string]int{}
	for _, a := range []string{"team.create", "team.update", "user.update"} {
		counts[a] = auditActions(t, s, a)
	}
	if diff := cmp.Diff(map[string]int{"team.create": 1, "team.update": 1, "user.update": 1}, counts); diff != "" {
		t.Fatalf("audit entries (-want +got):\n%s", diff)
	}
}

func TestAdminPolicies(t *testing.T) {
	t.Parallel()
	s, c, _ := adminServer(t)
	ctx := context.Background()
	registerGPUs(t, s, "gpu-a", 2)
	tok, _ := s.UserToken(t, models.RoleMember)
	if _, err := s.DB.Bun.NewUpdate().Model((*models.Node)(nil)).Set("drained = true").Where("name = 'gpu-a'").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if st, b := s.Do(t, "POST", "/api/v1/queue/submit", tok, `{"gpu_count":1,"executor":"lease","name":"waits-for-drain"}`); st != 201 {
		t.Fatalf("submit: %d %s", st, b)
	}
	before, err := models.SchedulerConfig(ctx, s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		form   url.Values
		status int
		text   string
	}{
		"not JSON":          {url.Values{"action": {"save"}, "policy": {"{"}}, 400, "not valid JSON"},
		"an unknown field":  {url.Values{"action": {"save"}, "policy": {`{"polcy":"fcfs"}`}}, 400, "unknown field"},
		"an invalid policy": {url.Values{"action": {"save"}, "policy": {`{"policy":"lottery"}`}}, 400, "The policy is not valid"},
		"an unknown preset": {url.Values{"action": {"save"}, "preset": {"nope"}}, 400, "Unknown preset"},
		"a preview":         {url.Values{"action": {"preview"}, "preset": {scheduler.PresetNames()[0]}}, 200, "waits-for-drain"},
	}
	for name, tc := range tests {
		st, body := postAdminForm(t, s, c, "/admin/policies", tc.form)
		if st != tc.status || !strings.Contains(body, tc.text) {
			t.Errorf("%s: %d, want %d with %q", name, st, tc.status, tc.text)
		}
	}
	if after, _ := models.SchedulerConfig(ctx, s.DB.Bun); !cmp.Equal(before, after) || auditActions(t, s, "orchestrator.policies") != 0 {
		t.Fatal("a refused policy or a preview changed the policy in force")
	}
	var name string
	for _, n := range scheduler.PresetNames() {
		if p, _ := scheduler.Preset(n); !cmp.Equal(p, before) {
			name = n
		}
	}
	want, _ := scheduler.Preset(name)
	if st, body := postAdminForm(t, s, c, "/admin/policies", url.Values{"action": {"save"}, "preset": {name}}); st != 200 || !strings.Contains(body, `data-testid="saved"`) {
		t.Fatalf("save preset %s: %d", name, st)
	}
	if after, _ := models.SchedulerConfig(ctx, s.DB.Bun); !cmp.Equal(want, after) || auditActions(t, s, "orchestrator.policies") != 1 {
		t.Fatalf("preset %s was not stored and audited", name)
	}
}

func TestAdminNodesAndAudit(t *testing.T) {
	t.Parallel()
	s, c, _ := adminServer(t)
	registerGPUs(t, s, "gpu-a", 4)
	if st, _ := postAdminForm(t, s, c, "/admin/nodes/gpu-a/drain", url.Values{}); st != 303 {
		t.Fatalf("drain: %d", st)
	}
	if st, _ := postAdminForm(t, s, c, "/admin/nodes/nope/drain", url.Values{}); st != 404 {
		t.Fatalf("drain an unknown node: %d", st)
	}
	_, page := fetchPage(t, s, c, "/admin/nodes")
	if !strings.Contains(page, `data-testid="drained"`) || !strings.Contains(page, `data-testid="undrain"`) {
		t.Fatal("the nodes page does not show the node drained with an undrain button")
	}
	// 60 more entries: the log pages by 50.
	for i := range 60 {
		if err := models.Audit(context.Background(), s.DB.Bun, &models.AuditEntry{Action: "test.fill", TargetType: "test", TargetID: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := map[string]struct {
		query  string
		status int
		rows   int
		text   string
	}{
		"by action":            {"?action=node.drain", 200, 1, "root@example.com"},
		"by actor":             {"?actor=root@example.com", 200, 2, "node.drain"}, // the sign-in's user.create and the drain
		"first page":           {"", 200, 50, "Older"},
		"second page":          {"?action=test.fill&before=0", 400, 0, "page marker"},
		"an unknown actor":     {"?actor=nobody@example.com", 400, 0, "no user has the email"},
		"a bad time":           {"?from=yesterday", 400, 0, "From must be a date and time"},
		"a range with nothing": {"?to=2000-01-01T00:00", 200, 0, "No entries"},
	}
	for name, tc := range tests {
		st, body := fetchPage(t, s, c, "/admin/audit"+tc.query)
		if n := strings.Count(body, `data-testid="audit-row"`); st != tc.status || n != tc.rows || !strings.Contains(body, tc.text) {
			t.Errorf("%s: %d with %d rows, want %d with %d rows and %q", name, st, n, tc.status, tc.rows, tc.text)
		}
	}
	// Following "Older" reaches the rest.
	_, first := fetchPage(t, s, c, "/admin/audit?action=test.fill")
	i := strings.Index(first, `href="/admin/audit?`)
	if i < 0 {
		t.Fatal("no link to older entries")
	}
	next := first[i+len(`href="`):]
	next = strings.ReplaceAll(next[:strings.Index(next, `"`)], "&amp;", "&")
	if _, body := fetchPage(t, s, c, next); strings.Count(body, `data-testid="audit-row"`) != 10 {
		t.Fatalf("the second page %s does not hold the last 10 entries", next)
	}
}
