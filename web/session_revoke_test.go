package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// sessionCookie returns the session cookie c holds for s.
func sessionCookie(t *testing.T, s *testserver.Server, c *http.Client) *http.Cookie {
	t.Helper()
	u, _ := url.Parse(s.URL)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == web.SessionCookie {
			return ck
		}
	}
	t.Fatal("no session cookie")
	return nil
}

// withCookie GETs path with only the session cookie ck (a copied cookie on
// another machine) and returns the status (303 to /login: not signed in).
func withCookie(t *testing.T, s *testserver.Server, ck *http.Cookie, path string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL+path, nil)
	req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	resp, err := noRedirect(s.Client()).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A copied cookie dies at sign-out; a second browser's session stays.
func TestSignOutEndsTheSessionEverywhere(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	laptop := s.Login(t, "ana@example.com")
	phone := s.Login(t, "ana@example.com")
	copied := sessionCookie(t, s, laptop)
	if st := withCookie(t, s, copied, "/queue"); st != http.StatusOK {
		t.Fatalf("the copied cookie before sign-out: %d", st)
	}
	token := s.CSRF(t, laptop)
	resp, err := laptop.PostForm(s.URL+"/auth/logout", url.Values{"_csrf": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if st := withCookie(t, s, copied, "/queue"); st != http.StatusSeeOther {
		t.Fatalf("the copied cookie after sign-out: %d, want 303 to sign in", st)
	}
	if st := withCookie(t, s, sessionCookie(t, s, phone), "/queue"); st != http.StatusOK {
		t.Fatalf("the other browser's session after sign-out on the laptop: %d", st)
	}
}

// Disabling a user ends their sessions (re-enabling does not revive them);
// a role change shows at once.
func TestDisableAndRoleChangeApplyAtOnce(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	_ = s.Login(t, "root@example.com") // the first user becomes admin
	ana := s.Login(t, "ana@example.com")
	ck := sessionCookie(t, s, ana)
	u, err := models.GetUserByEmail(context.Background(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if st := withCookie(t, s, ck, "/admin/users"); st != http.StatusForbidden {
		t.Fatalf("a member on /admin: %d", st)
	}
	if err := models.SetUserRole(context.Background(), s.DB.Bun, u.ID, models.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new role", func() bool { return withCookie(t, s, ck, "/admin/users") == http.StatusOK })
	if err := models.SetUserDisabled(context.Background(), s.DB.Bun, u.ID, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "disabling", func() bool { return withCookie(t, s, ck, "/queue") == http.StatusSeeOther })
	if err := models.SetUserDisabled(context.Background(), s.DB.Bun, u.ID, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	if st := withCookie(t, s, ck, "/queue"); st != http.StatusSeeOther {
		t.Fatalf("re-enabling revived an ended session: %d", st)
	}
}

// The settings page lists the person's sessions (this one marked), signs
// another one out, and "Sign out everywhere" ends them all.
func TestSettingsSessions(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	laptop := s.Login(t, "ana@example.com")
	phone := s.Login(t, "ana@example.com")
	phoneCookie := sessionCookie(t, s, phone)
	resp, err := laptop.Get(s.URL + "/settings")
	if err != nil {
		t.Fatal(err)
	}
	body := string(readAll(t, resp))
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.Count(body, `data-testid="session-row"`) != 2 || strings.Count(body, `data-testid="this-device"`) != 1 ||
		!strings.Contains(body, `href="/settings/tokens"`) {
		t.Fatalf("settings page: %d %.600s", resp.StatusCode, body)
	}
	u, _ := models.GetUserByEmail(context.Background(), s.DB.Bun, "ana@example.com")
	list, err := models.ListSessions(context.Background(), s.DB.Bun, u.ID, time.Now())
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions: %v %d", err, len(list))
	}
	phoneID := max(list[0].ID, list[1].ID) // signed in second
	token := s.CSRF(t, laptop)
	resp, err = laptop.PostForm(fmt.Sprintf("%s/settings/sessions/%d/end", s.URL, phoneID), url.Values{"_csrf": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || withCookie(t, s, phoneCookie, "/queue") != http.StatusSeeOther {
		t.Fatalf("signing the phone out from the laptop: %d", resp.StatusCode)
	}
	laptopCookie := sessionCookie(t, s, laptop)
	resp, err = laptop.PostForm(s.URL+"/settings/sessions/end-all", url.Values{"_csrf": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" || withCookie(t, s, laptopCookie, "/queue") != http.StatusSeeOther {
		t.Fatalf("sign out everywhere: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// An admin ends a user's sessions through the API; it is audited.
func TestAdminEndsUserSessions(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	adminToken, _ := s.UserToken(t, models.RoleAdmin)
	ck := sessionCookie(t, s, s.Login(t, "ana@example.com"))
	u, _ := models.GetUserByEmail(context.Background(), s.DB.Bun, "ana@example.com")
	st, body := s.Do(t, "DELETE", fmt.Sprintf("/api/v1/users/%d/sessions", u.ID), adminToken, "")
	if st != 200 || strings.TrimSpace(string(body)) != `{"ended":1}` {
		t.Fatalf("DELETE sessions: %d %s", st, body)
	}
	waitFor(t, "the admin's sign-out", func() bool { return withCookie(t, s, ck, "/queue") == http.StatusSeeOther })
	n, err := s.DB.Bun.NewSelect().Model((*models.AuditEntry)(nil)).Where("action = 'user.sessions.end'").Count(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("audit entries: %d %v", n, err)
	}
	if st, _ := s.Do(t, "DELETE", "/api/v1/users/999999/sessions", adminToken, ""); st != http.StatusNotFound {
		t.Fatalf("an unknown user: %d", st)
	}
}

// An open event stream ends when its session ends.
func TestEventStreamEndsWithItsSession(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	adminToken, _ := s.UserToken(t, models.RoleAdmin)
	ck := sessionCookie(t, s, s.Login(t, "ana@example.com"))
	req, _ := http.NewRequest("GET", s.URL+"/events", nil)
	req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	resp, err := noRedirect(s.Client()).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events: %d", resp.StatusCode)
	}
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(ended)
	}()
	u, _ := models.GetUserByEmail(context.Background(), s.DB.Bun, "ana@example.com")
	if st, body := s.Do(t, "DELETE", fmt.Sprintf("/api/v1/users/%d/sessions", u.ID), adminToken, ""); st != 200 {
		t.Fatalf("end sessions: %d %s", st, body)
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the event stream is still open 5 s after its session ended")
	}
}
