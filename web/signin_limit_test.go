package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// Sign-ins are also limited per account: a burst, then 429 with
// Retry-After, while other accounts from the same address go on.
func TestSignInAccountLimit(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{SignInAccountRate: web.RateLimit{Every: time.Hour, Burst: 2}})
	signIn := func(email string) (int, string) {
		c := browserClient()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		token := s.CSRF(t, c)
		resp, err := c.PostForm(s.URL+"/auth/dev", url.Values{"email": {email}, "_csrf": {token}, "next": {"/"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	var got []int
	for range 3 {
		st, _ := signIn("ana@example.com")
		got = append(got, st)
	}
	if got[0] != http.StatusSeeOther || got[1] != http.StatusSeeOther || got[2] != http.StatusTooManyRequests {
		t.Fatalf("three sign-ins of one account: %v, want 303 303 429", got)
	}
	if st, _ := signIn("bo@example.com"); st != http.StatusSeeOther {
		t.Fatalf("another account from the same address: %d", st)
	}
}

// The default per-address limit lets a team behind one NAT sign in
// together (60 people, each two requests: begin and callback), then refuses.
func TestSignInAddressLimitFitsATeam(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{SignInRate: web.DefaultSignInRate})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	limited := 0
	for i := range 140 {
		resp, err := c.Get(s.URL + "/auth/no-such-provider")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			if i < 120 {
				t.Fatalf("request %d from one address refused; a team behind a NAT would be", i+1)
			}
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("140 sign-in requests at once from one address were all let through")
	}
}
