package web_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/signin"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/oidctest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// startFake starts the control plane with one fake provider "fake" built
// with o; example.com may join and boss@example.com is a configured admin.
func startFake(t *testing.T, o oidctest.FakeOptions) (*testserver.Server, *oidctest.Fake) {
	t.Helper()
	var f *oidctest.Fake
	s := testserver.NewWith(t, testserver.Options{Configure: func(url string, h *handlers.Handlers) {
		f = oidctest.StartFake(t, o)
		ps, err := signin.New(url, []signin.ProviderConfig{{Name: "fake", Kind: signin.KindOIDC, Label: "Fake SSO",
			Issuer: f.Issuer, ClientID: f.ClientID, ClientSecret: f.ClientSecret}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h.SignIn = ps
		h.Config.SignInPolicy = signin.Policy{AllowedDomains: []string{"example.com"}, Admins: []string{"boss@example.com"}}
	}})
	return s, f
}

// fakeSignIn runs a whole sign-in through the fake provider in a fresh
// browser and reports the final status, path and body, and whether the
// browser is signed in afterwards.
func fakeSignIn(t *testing.T, s *testserver.Server) (int, string, string, bool) {
	t.Helper()
	c := browserClient()
	resp, err := c.Get(s.URL + "/auth/fake?next=/queue")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	after, err := c.Get(s.URL + "/queue")
	if err != nil {
		t.Fatal(err)
	}
	after.Body.Close()
	return resp.StatusCode, resp.Request.URL.Path, string(b), after.Request.URL.Path == "/queue"
}

// Only an honest, correctly signed ID token signs anyone in: every forgery
// the issue names is refused, and nobody is created or signed in.
func TestIDTokenVerification(t *testing.T) {
	t.Parallel()
	type want struct {
		Status   int
		Path     string
		Text     string
		SignedIn bool
		Exists   bool
	}
	refused := func(text string) want {
		return want{Status: http.StatusUnauthorized, Path: "/auth/fake/callback", Text: text}
	}
	const unverified = "could not be verified"
	tests := map[string]struct {
		opts oidctest.FakeOptions
		mode oidctest.Mode
		want want
	}{
		"an honest token":                           {mode: oidctest.Honest, want: want{Status: 200, Path: "/queue", Text: `data-testid="nav-user"`, SignedIn: true, Exists: true}},
		"an honest token, no userinfo endpoint":     {opts: oidctest.FakeOptions{NoUserinfo: true}, mode: oidctest.Honest, want: want{Status: 200, Path: "/queue", Text: `data-testid="nav-user"`, SignedIn: true, Exists: true}},
		"signed with a key not in the JWKS":         {mode: oidctest.WrongKey, want: refused(unverified)},
		"unsigned (alg none)":                       {mode: oidctest.AlgNone, want: refused(unverified)},
		"unsigned, no userinfo endpoint to fall on": {opts: oidctest.FakeOptions{NoUserinfo: true}, mode: oidctest.AlgNone, want: refused(unverified)},
		"another issuer in the token":               {mode: oidctest.WrongIssuer, want: refused(unverified)},
		"issued to another client":                  {mode: oidctest.WrongAudience, want: refused(unverified)},
		"expired":                                   {mode: oidctest.Expired, want: refused(unverified)},
		"a replayed token (another nonce)":          {mode: oidctest.WrongNonce, want: refused(unverified)},
		"the person pressed cancel at the provider": {mode: oidctest.Cancel, want: want{Status: http.StatusBadRequest, Path: "/auth/fake/callback", Text: "canceled at Fake SSO"}},
		"discovery names another issuer":            {opts: oidctest.FakeOptions{DiscoveryIssuer: "https://accounts.example"}, mode: oidctest.Honest, want: want{Status: http.StatusServiceUnavailable, Path: "/auth/fake", Text: "not reachable"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, f := startFake(t, tc.opts)
			f.Set(tc.mode, oidctest.User{Email: "boss@example.com", EmailVerified: true, Name: "Boss"})
			status, path, body, in := fakeSignIn(t, s)
			got := want{Status: status, Path: path, Text: tc.want.Text, SignedIn: in}
			if !strings.Contains(body, tc.want.Text) {
				got.Text = "(missing)"
			}
			_, err := models.GetUserByEmail(context.Background(), s.DB.Bun, "boss@example.com")
			got.Exists = err == nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s\nbody: %.400s", diff, body)
			}
		})
	}
}

// The provider rotates its signing key: the relying party fetches the key
// set again for the unknown key id, and sign-in goes on.
func TestIDTokenKeyRotation(t *testing.T) {
	t.Parallel()
	s, f := startFake(t, oidctest.FakeOptions{})
	f.Set(oidctest.Honest, oidctest.User{Email: "ana@example.com", EmailVerified: true})
	if status, path, body, in := fakeSignIn(t, s); status != 200 || path != "/queue" || !in {
		t.Fatalf("before rotation: %d %s %.300s", status, path, body)
	}
	f.Rotate()
	if status, path, body, in := fakeSignIn(t, s); status != 200 || path != "/queue" || !in {
		t.Fatalf("after rotation: %d %s %.300s", status, path, body)
	}
}

// next never leaves the site, whatever the sign-in route.
func TestSignInNextStaysOnSite(t *testing.T) {
	t.Parallel()
	s, f := startFake(t, oidctest.FakeOptions{})
	f.Set(oidctest.Honest, oidctest.User{Email: "ana@example.com", EmailVerified: true})
	for _, next := range []string{"/\t/evil.example/phish", "/\\evil.example", "//evil.example", "/%2F/evil.example", "https://evil.example/"} {
		c := browserClient()
		var locations []string
		c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
			locations = append(locations, req.URL.String())
			return nil
		}
		resp, err := c.Get(s.URL + "/auth/fake?next=" + url.QueryEscape(next))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		// Either it lands on the home page, or (a control character in
		// next) the sign-in is refused at once, on this site.
		refused := resp.StatusCode == http.StatusBadRequest && len(locations) == 0
		if resp.Request.URL.Host != strings.TrimPrefix(s.URL, "http://") || (resp.Request.URL.Path != "/" && !refused) {
			t.Errorf("next=%q ended at %s with %d (via %v)", next, resp.Request.URL, resp.StatusCode, locations)
		}
	}
}
