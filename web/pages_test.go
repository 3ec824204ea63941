package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func noRedirect(c *http.Client) *http.Client {
	cc := *c
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cc
}

func TestPagesNeedASession(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	c := noRedirect(s.Client())
	resp, err := c.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?next=%2F" {
		t.Fatalf("anonymous GET /: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	req, _ := http.NewRequest("GET", s.URL+"/fragments/cluster", nil)
	req.Header.Set("HX-Request", "true")
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("HX-Redirect"), "/login") {
		t.Fatalf("anonymous htmx fragment: %d, HX-Redirect %q", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}
}

func TestDevLoginFlow(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	ctx := context.Background()

	// Without the CSRF token the form is refused and nobody is created.
	resp, err := noRedirect(s.Client()).PostForm(s.URL+"/auth/dev", url.Values{"email": {"mallory@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("dev login without CSRF: status %d", resp.StatusCode)
	}
	if _, err := models.GetUserByEmail(ctx, s.DB.Bun, "mallory@example.com"); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("user created without CSRF token: %v", err)
	}

	// The first to sign in becomes admin; later people are members.
	ana := s.Login(t, "Ana@Example.com")
	s.Login(t, "bo@example.com")
	for email, role := range map[string]string{"ana@example.com": models.RoleAdmin, "bo@example.com": models.RoleMember} {
		u, err := models.GetUserByEmail(ctx, s.DB.Bun, email)
		if err != nil || u.Role != role {
			t.Fatalf("%s: %+v %v, want role %s", email, u, err, role)
		}
	}

	resp, err = ana.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	resp.Body.Close()
	if resp.StatusCode != 200 || !contains(body, "ana") || !contains(body, `sse-connect="/events?topics=gpus,nodes,bookings,queue"`) {
		t.Fatalf("cluster page after login: %d\n%s", resp.StatusCode, body)
	}

	// Someone signed in who opens the sign-in page goes where they wanted.
	resp, err = ana.Get(s.URL + "/login?next=%2Fadmin%2Friver")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin/river" {
		t.Fatalf("GET /login when signed in: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Signing out ends the session.
	token := s.CSRF(t, ana)
	resp, err = ana.PostForm(s.URL+"/auth/logout", url.Values{"_csrf": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, _ = ana.Get(s.URL + "/")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("GET / after logout: %d", resp.StatusCode)
	}
}

func TestDevLoginRefusedFromOtherHosts(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	// Through the real echo stack, but as if the request came from the LAN.
	req := httptest.NewRequest("POST", "/auth/dev", strings.NewReader("email=eve%40example.com"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-CSRF-Token", "t")
	req.AddCookie(&http.Cookie{Name: "gpusched_csrf", Value: "t"})
	req.RemoteAddr = "192.0.2.7:51234"
	rec := httptest.NewRecorder()
	s.Web.Echo.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("status %d, want 403: %s", rec.Code, rec.Body)
	}
	if _, err := models.GetUserByEmail(context.Background(), s.DB.Bun, "eve@example.com"); !errors.Is(err, models.ErrNotFound) {
		t.Fatal("a remote dev login created a user")
	}
}

func TestTamperedSessionCookieIsNoSession(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	c := s.Login(t, "ana@example.com")
	u, _ := url.Parse(s.URL)
	var session *http.Cookie
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "gpusched_session" {
			session = ck
		}
	}
	if session == nil {
		t.Fatal("no session cookie after login")
	}
	b := []byte(session.Value)
	b[len(b)/2] ^= 1
	req, _ := http.NewRequest("GET", s.URL+"/", nil)
	req.AddCookie(&http.Cookie{Name: "gpusched_session", Value: string(b)})
	resp, err := noRedirect(s.Client()).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("tampered cookie: status %d, want a redirect to sign in", resp.StatusCode)
	}
}

func TestHTMLErrorPageAndSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	c := s.Login(t, "ana@example.com")
	resp, err := c.Get(s.URL + "/no/such/page")
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !contains(body, "404") {
		t.Fatalf("404 page: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "X-Request-Id"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("missing header %s", h)
		}
	}
}
