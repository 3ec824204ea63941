package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testserver"
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

// eventually polls f for up to 3 s (a signal from another transaction
// reaches the cache through LISTEN/NOTIFY).
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 3 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
	eventually(t, "the new role", func() bool { return withCookie(t, s, ck, "/admin/users") == http.StatusOK })
	if err := models.SetUserDisabled(context.Background(), s.DB.Bun, u.ID, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "disabling", func() bool { return withCookie(t, s, ck, "/queue") == http.StatusSeeOther })
	if err := models.SetUserDisabled(context.Background(), s.DB.Bun, u.ID, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	if st := withCookie(t, s, ck, "/queue"); st != http.StatusSeeOther {
		t.Fatalf("re-enabling revived an ended session: %d", st)
	}
}
