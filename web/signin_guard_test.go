package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// A callback that does not carry the flow started in this browser is
// refused, whatever its code and state say.
func TestSSOCallbackWithoutFlowIsRefused(t *testing.T) {
	t.Parallel()
	s, ops := startSSO(t)
	// A sign-in started in one browser...
	victim := browserClient()
	victim.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.Path, "/auth/oidc/callback") {
			return http.ErrUseLastResponse // stop before the callback: the attacker takes the URL
		}
		return nil
	}
	resp, _ := ops["oidc"].SignIn(t, victim, s.URL+"/auth/oidc", "ana@example.com")
	callback := resp.Header.Get("Location")
	if !strings.Contains(callback, "/auth/oidc/callback?code=") {
		t.Fatalf("expected a redirect to the callback, got %d %q", resp.StatusCode, callback)
	}
	// ...finished in another (login CSRF, a stolen code) does not sign in.
	other := browserClient()
	resp, err := other.Get(callback)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !contains(body, "sign in again") {
		t.Fatalf("callback without the flow cookie: %d %.300s", resp.StatusCode, body)
	}
	if _, err := models.GetUserByEmail(context.Background(), s.DB.Bun, "ana@example.com"); err == nil {
		t.Fatal("a user was created from a callback without its flow")
	}
}

// A disabled user cannot sign in, and their session and tokens stop working.
func TestSSODisabledUser(t *testing.T) {
	t.Parallel()
	s, ops := startSSO(t)
	c := browserClient()
	if status, path, _ := ssoSignIn(t, s, ops, c, "oidc", "ana@example.com"); status != 200 || path != "/queue" {
		t.Fatalf("first sign-in: %d %s", status, path)
	}
	u, err := models.GetUserByEmail(context.Background(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := models.CreateUserToken(context.Background(), s.DB.Bun, u.ID, "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Do(t, "GET", "/api/v1/me", tok, ""); st != 200 {
		t.Fatalf("token before disabling: %d", st)
	}
	if err := models.SetUserDisabled(context.Background(), s.DB.Bun, u.ID, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	// The session is gone: the overview sends the browser to sign in. The
	// disabling was written straight to the database, so this replica hears
	// of it through NOTIFY, as any other replica would: a moment later.
	var opened string
	if !eventually(5*time.Second, func() bool {
		resp, err := c.Get(s.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		opened = resp.Request.URL.Path
		return opened == "/login"
	}) {
		t.Fatalf("session of a disabled user still opens %s after 5 s", opened)
	}
	// The token is refused (the cache is cleared by the change signal).
	var st int
	if !eventually(10*time.Second, func() bool { st, _ = s.Do(t, "GET", "/api/v1/me", tok, ""); return st == 401 }) {
		t.Fatalf("token of a disabled user still answers %d", st)
	}
	// And signing in again is refused.
	status, _, body := ssoSignIn(t, s, ops, browserClient(), "corp", "ana@example.com")
	if status != 403 || !strings.Contains(body, "disabled") {
		t.Fatalf("sign-in of a disabled user: %d %.300s", status, body)
	}
}

// The sign-in routes are rate-limited per client address.
func TestSignInRateLimit(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{SignInRate: web.RateLimit{Every: time.Hour, Burst: 3}})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var got []int
	var retry string
	for range 5 {
		resp, err := c.PostForm(s.URL+"/auth/dev", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.StatusCode)
		retry = resp.Header.Get("Retry-After")
	}
	// The first three reach the handler (refused there: no CSRF token); then 429.
	if got[0] == http.StatusTooManyRequests || got[2] == http.StatusTooManyRequests || got[3] != http.StatusTooManyRequests || got[4] != http.StatusTooManyRequests {
		t.Fatalf("statuses %v, want three answers then 429s", got)
	}
	if retry != "3600" {
		t.Fatalf("Retry-After %q, want 3600", retry)
	}
}
