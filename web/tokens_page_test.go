package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

var shownToken = regexp.MustCompile(`data-testid="token-value">(gsu_[a-z2-7]{8}_[a-z2-7]{52})<`)

// postAdminForm posts a page form with the CSRF token of c's session and returns
// status and body.
func postAdminForm(t *testing.T, s *testserver.Server, c *http.Client, path string, form url.Values) (int, string) {
	t.Helper()
	form.Set("_csrf", s.CSRF(t, c))
	resp, err := c.PostForm(s.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, string(readAll(t, resp))
}

// fetchPage fetches a page with c and returns status and body.
func fetchPage(t *testing.T, s *testserver.Server, c *http.Client, path string) (int, string) {
	t.Helper()
	resp, err := c.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, string(readAll(t, resp))
}

func auditActions(t *testing.T, s *testserver.Server, action string) int {
	t.Helper()
	n, err := s.DB.Bun.NewSelect().Model((*models.AuditEntry)(nil)).Where("action = ?", action).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// The tokens page: create (shown once), use, list, revoke.
func TestTokensPage(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	c := s.Login(t, "ana@example.com")

	if st, body := postAdminForm(t, s, c, "/settings/tokens", url.Values{"name": {"  "}}); st != http.StatusBadRequest || !strings.Contains(body, "Give the token a name") {
		t.Fatalf("empty name: %d", st)
	}
	st, body := postAdminForm(t, s, c, "/settings/tokens", url.Values{"name": {"laptop"}})
	m := shownToken.FindStringSubmatch(body)
	if st != http.StatusCreated || m == nil {
		t.Fatalf("create: %d, token shown: %v", st, m != nil)
	}
	plain := m[1]
	if st, _ := s.Do(t, "GET", "/api/v1/me", plain, ""); st != 200 {
		t.Fatalf("the new token does not work: %d", st)
	}
	// Listed by prefix, never in full again.
	_, list := fetchPage(t, s, c, "/settings/tokens")
	prefix := plain[:12]
	if !strings.Contains(list, `data-prefix="`+prefix+`"`) || strings.Contains(list, plain) || !strings.Contains(list, "laptop") {
		t.Fatalf("the list should name the token by prefix only:\n%s", list)
	}
	// Another user cannot revoke it.
	eve := s.Login(t, "eve@example.com")
	if st, _ := postAdminForm(t, s, eve, "/settings/tokens/"+prefix+"/revoke", url.Values{}); st != http.StatusNotFound {
		t.Fatalf("another user's revoke: %d", st)
	}
	if st, _ := postAdminForm(t, s, c, "/settings/tokens/"+prefix+"/revoke", url.Values{}); st != http.StatusSeeOther {
		t.Fatalf("revoke: %d", st)
	}
	var me int
	if !eventually(10*time.Second, func() bool { me, _ = s.Do(t, "GET", "/api/v1/me", plain, ""); return me == 401 }) {
		t.Fatalf("a revoked token still answers %d", me)
	}
	if _, list := fetchPage(t, s, c, "/settings/tokens"); strings.Contains(list, prefix) {
		t.Fatal("a revoked token is still listed")
	}
	if auditActions(t, s, "token.create") != 1 || auditActions(t, s, "token.revoke") != 1 {
		t.Fatal("token changes were not audited")
	}
}
