package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// postForm posts a page form with c's CSRF token and returns status, body
// and the redirect target.
func postForm(t *testing.T, s *testserver.Server, c *http.Client, path string, v url.Values) (int, string, string) {
	t.Helper()
	v.Set("_csrf", s.CSRF(t, c))
	resp, err := c.PostForm(s.URL+path, v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Location")
}

var hiddenCSRF = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// submitPageForm posts, as a browser without JavaScript would, the form of
// page whose action starts with action, with its own hidden _csrf field and
// v; it returns status, body and the redirect target.
func submitPageForm(t *testing.T, s *testserver.Server, c *http.Client, page, action string, v url.Values) (int, string, string) {
	t.Helper()
	html := getPage(t, c, s.URL+page)
	i := strings.Index(html, `action="`+action)
	if i < 0 {
		t.Fatalf("%s has no form to %s", page, action)
	}
	end := strings.Index(html[i:], "</form>")
	m := hiddenCSRF.FindStringSubmatch(html[i : i+end])
	if m == nil {
		t.Fatalf("the form to %s on %s has no _csrf field", action, page)
	}
	target := html[i+len(`action="`):]
	target = strings.ReplaceAll(target[:strings.Index(target, `"`)], "&amp;", "&")
	v.Set("_csrf", m[1])
	resp, err := c.PostForm(s.URL+target, v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Location")
}

// The calendar works without JavaScript: a plain form books and is sent to
// the booking's week; a clash answers 409 with the page and the message;
// the owner cancels from the page, another member may not.
func TestBookingsPageWithoutJavaScript(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana := s.Login(t, "ana@example.com")
	bo := s.Login(t, "bo@example.com")
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	form := func(n string) url.Values {
		return url.Values{"gpu_count": {n}, "starts_at": {day.Add(9 * time.Hour).Format("2006-01-02T15:04")},
			"ends_at": {day.Add(18 * time.Hour).Format("2006-01-02T15:04")}, "note": {"big run"}}
	}
	st, _, loc := submitPageForm(t, s, ana, "/bookings", "/bookings", form("6"))
	if st != http.StatusSeeOther || loc != "/bookings?date="+day.Format("2006-01-02") {
		t.Fatalf("ana books 6 GPUs: %d → %q", st, loc)
	}
	page := getPage(t, bo, s.URL+loc)
	for _, want := range []string{`data-testid="booking-link"`, "ana@example.com", "ana · 6 GPUs", `sse-connect="/events?topics=bookings,jobs"`, `aria-current="page">Bookings`} {
		if !strings.Contains(page, want) {
			t.Errorf("the calendar lacks %q", want)
		}
	}
	if strings.Contains(page, `data-testid="cancel-booking"`) {
		t.Error("bo is offered to cancel ana's booking")
	}
	st, body, _ := postForm(t, s, bo, "/bookings", form("3"))
	if st != http.StatusConflict || !strings.Contains(body, `data-testid="booking-error"`) || !strings.Contains(body, "ana@example.com&#39;s booking #") {
		t.Fatalf("bo's clashing booking: %d, want 409 with the message naming ana's booking", st)
	}
	st, body, _ = postForm(t, s, bo, "/bookings", url.Values{"gpu_count": {"x"}})
	if st != http.StatusBadRequest || !strings.Contains(body, "is not a number") {
		t.Fatalf("a form with a bad count: %d", st)
	}

	var id int64
	if err := s.DB.Bun.NewSelect().Model((*models.Booking)(nil)).Column("id").Scan(t.Context(), &id); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := postForm(t, s, bo, fmt.Sprintf("/bookings/%d/cancel", id), url.Values{}); st != http.StatusForbidden {
		t.Fatalf("bo cancels ana's booking: %d", st)
	}
	if st, _, _ := submitPageForm(t, s, ana, loc, fmt.Sprintf("/bookings/%d/cancel", id), url.Values{}); st != http.StatusSeeOther {
		t.Fatalf("ana cancels her booking: %d", st)
	}
	if st, _, _ := postForm(t, s, bo, "/bookings", form("3")); st != http.StatusSeeOther {
		t.Fatalf("after the cancel bo books: %d", st)
	}

	// An agent's pre-warm hold shows in today's row too, marked as a hold.
	boUser, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "bo@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := models.CreateUserToken(t.Context(), s.DB.Bun, boUser.ID, "agent", nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, body := s.Do(t, "POST", "/api/v1/holds", tok, `{"gpu_count":1,"monitor":"train-log"}`); st != http.StatusAccepted {
		t.Fatalf("bo's agent holds a GPU: %d %s", st, body)
	}
	if page := getPage(t, ana, s.URL+"/bookings"); !strings.Contains(page, "kind-hold") || !strings.Contains(page, `data-testid="hold-bar"`) {
		t.Error("the calendar does not show bo's hold")
	}
}

// Members see every job's page but act only on their own: another
// member's job shows no actions, no output, and refuses the forms.
func TestJobPageAccess(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	admin := s.Login(t, "root@example.com") // the first to sign in to a dev server is its admin
	ana := s.Login(t, "ana@example.com")
	bo := s.Login(t, "bo@example.com")
	// Scheduling paused: ana's job stays queued, where its priority may change
	// (it would otherwise start on the idle node before the page is read).
	if err := models.SetSchedulingPaused(context.Background(), s.DB.Bun, true, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, _, loc := postForm(t, s, ana, "/queue", url.Values{"name": {"ana-job"}, "gpu_count": {"9"}, "executor": {"lease"}, "priority": {"normal"}})
	if st != http.StatusBadRequest {
		t.Fatalf("a job too big for any node: %d", st)
	}
	st, _, loc = submitPageForm(t, s, ana, "/queue", "/queue", url.Values{"name": {"ana-job"}, "gpu_count": {"8"}, "executor": {"lease"}, "priority": {"high"}, "estimated_duration": {"2h"}})
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/jobs/") {
		t.Fatalf("submit from the page: %d → %q", st, loc)
	}
	own := getPage(t, ana, s.URL+loc)
	other := getPage(t, bo, s.URL+loc)
	for _, want := range []string{"ana-job", "Spec", "Timeline", "submitted", "2h0m0s"} {
		if !strings.Contains(own, want) || !strings.Contains(other, want) {
			t.Errorf("the job page lacks %q for its owner or another member", want)
		}
	}
	if !strings.Contains(own, `data-testid="cancel-job"`) || !strings.Contains(own, `data-testid="job-log"`) {
		t.Error("the owner is not offered the actions and the output")
	}
	if strings.Contains(other, `data-testid="cancel-job"`) || strings.Contains(other, `data-testid="job-log"`) {
		t.Error("another member is offered the actions or the output")
	}
	id := strings.TrimPrefix(loc, "/jobs/")
	// The queue's row form works without JavaScript too.
	if st, _, _ := submitPageForm(t, s, ana, "/queue", "/jobs/"+id+"/priority", url.Values{"priority": {"normal"}}); st != http.StatusSeeOther {
		t.Fatalf("ana sets normal from the queue page's row form: %d", st)
	}
	steps := []struct {
		name   string
		c      *http.Client
		path   string
		v      url.Values
		status int
	}{
		{"bo sets ana's priority", bo, "/jobs/" + id + "/priority", url.Values{"priority": {"low"}}, http.StatusNotFound},
		{"bo cancels ana's job", bo, "/jobs/" + id + "/cancel", url.Values{}, http.StatusNotFound},
		{"ana asks critical", ana, "/jobs/" + id + "/priority", url.Values{"priority": {"critical"}}, http.StatusForbidden},
		{"ana sets a bad priority", ana, "/jobs/" + id + "/priority", url.Values{"priority": {"urgent"}}, http.StatusBadRequest},
		{"admin sets critical", admin, "/jobs/" + id + "/priority", url.Values{"priority": {"critical"}, "return": {"job"}}, http.StatusSeeOther},
		{"ana sets low from the queue", ana, "/jobs/" + id + "/priority", url.Values{"priority": {"low"}}, http.StatusSeeOther},
		{"ana cancels her own job", ana, "/jobs/" + id + "/cancel", url.Values{"return": {"job"}}, http.StatusSeeOther},
		{"ana cancels it once more", ana, "/jobs/" + id + "/cancel", url.Values{}, http.StatusConflict},
	}
	for _, step := range steps {
		if st, _, _ := postForm(t, s, step.c, step.path, step.v); st != step.status {
			t.Errorf("%s: %d, want %d", step.name, st, step.status)
		}
	}
	resp, err := bo.Get(s.URL + "/fragments/jobs/" + id + "/logs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("bo reads ana's output: %d", resp.StatusCode)
	}
	page := getPage(t, bo, s.URL+loc)
	if !strings.Contains(page, `data-testid="job-state">canceled`) || !strings.Contains(page, "by ana@example.com") {
		t.Error("the page does not show the canceled state with its actor")
	}
}

// The queue page's filters travel in the query string, into the live
// fragment's URL and the actions'; mine, team and state narrow the jobs.
func TestQueuePageFilters(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana := s.Login(t, "ana@example.com")
	ctx := t.Context()
	team, err := models.CreateTeam(ctx, s.DB.Bun, "vision", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	submit := func(email, name string, gpus int, team *models.Team) {
		u, err := models.GetUserByEmail(ctx, s.DB.Bun, email)
		if err != nil {
			u, err = models.CreateUser(ctx, s.DB.Bun, email, "", models.RoleMember)
			if err != nil {
				t.Fatal(err)
			}
		}
		if team != nil {
			if err := models.SetUserTeam(ctx, s.DB.Bun, u.ID, &team.ID); err != nil {
				t.Fatal(err)
			}
			u.TeamID = &team.ID
		}
		j := &models.Job{Name: name, OwnerID: u.ID, TeamID: u.TeamID, GPUCount: gpus, Executor: models.ExecutorLease, Priority: 2}
		if err := models.CreateJob(ctx, s.DB.Pool, j, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	submit("ana@example.com", "ana-job", 1, team)
	submit("bo@example.com", "bo-job", 1, team)
	submit("cy@example.com", "cy-job", 1, nil)
	for path, want := range map[string][]string{
		"/fragments/queue":                      {"ana-job", "bo-job", "cy-job"},
		"/fragments/queue?mine=1":               {"ana-job"},
		"/fragments/queue?team=1":               {"ana-job", "bo-job"},
		"/fragments/queue?state=waiting":        {},
		"/fragments/queue?mine=1&state=running": {"ana-job"},
	} {
		var names []string
		waitFor(t, path+" as expected", func() bool {
			page := getPage(t, ana, s.URL+path)
			names = names[:0]
			for _, n := range []string{"ana-job", "bo-job", "cy-job"} {
				if strings.Contains(page, n) {
					names = append(names, n)
				}
			}
			return strings.Join(names, ",") == strings.Join(want, ",")
		})
	}
	if page := getPage(t, ana, s.URL+"/queue"); !strings.Contains(page, `data-testid="filter-team"`) {
		t.Error("ana, in a team, is not offered the team filter")
	}
	page := getPage(t, ana, s.URL+"/queue?mine=1&state=waiting")
	for _, want := range []string{`hx-get="/fragments/queue?mine=1&amp;state=waiting"`, `hx-post="/queue?mine=1&amp;state=waiting"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the filtered page lacks %q", want)
		}
	}
	resp, err := ana.Get(s.URL + "/queue?state=sleeping")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown state filter: %d", resp.StatusCode)
	}
}
