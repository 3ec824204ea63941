package testserver

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]*)"`)

// Login signs email in through the dev sign-in form, as a browser would
// (GET the form for its CSRF token, POST it), and returns a client holding
// the session cookie.
func (s *Server) Login(t testing.TB, email string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	token := s.CSRF(t, c)
	resp, err := c.PostForm(s.URL+"/auth/dev", url.Values{"email": {email}, "_csrf": {token}, "next": {"/"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("dev login of %s: status %d", email, resp.StatusCode)
	}
	return c
}

// CSRF loads a page with c (the sign-in page, or where it sends someone
// already signed in) and returns the CSRF token it carries.
func (s *Server) CSRF(t testing.TB, c *http.Client) string {
	t.Helper()
	resp, err := c.Get(s.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusSeeOther {
		resp.Body.Close()
		if resp, err = c.Get(s.URL + resp.Header.Get("Location")); err != nil {
			t.Fatal(err)
		}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := csrfMeta.FindSubmatch(body)
	if m == nil || len(m[1]) == 0 {
		t.Fatalf("no csrf token in /login: %s", strings.TrimSpace(string(body))[:min(len(body), 300)])
	}
	return string(m[1])
}
