package oidctest

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var hiddenID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// SignIn drives a whole sign-in with c (which must keep cookies and follow
// redirects): GET start (the relying party's sign-in URL, which sends the
// browser here), submit the provider's login form as email, and follow the
// redirects back. It returns the last response, body read, and its body.
func (p *Provider) SignIn(t testing.TB, c *http.Client, start, email string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(start)
	if err != nil {
		t.Fatalf("oidctest: start sign-in at %s: %v", start, err)
	}
	body := readBody(t, resp)
	m := hiddenID.FindStringSubmatch(body)
	if m == nil || !strings.HasPrefix(resp.Request.URL.String(), p.Issuer) {
		t.Fatalf("oidctest: expected the provider's login form, got %d at %s: %.300s", resp.StatusCode, resp.Request.URL, body)
	}
	form := url.Values{"id": {m[1]}, "username": {email}, "password": {Password}}
	resp, err = c.PostForm(p.Issuer+"/login/username", form)
	if err != nil {
		t.Fatalf("oidctest: submit the login form: %v", err)
	}
	return resp, readBody(t, resp)
}

func readBody(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(fmt.Errorf("oidctest: read %s: %w", resp.Request.URL, err))
	}
	return string(b)
}
