package web_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/signin"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/oidctest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// ssoUsers are the accounts at each test identity provider ("oidc" and
// "corp"): the same people, with different subjects at each.
var ssoUsers = []oidctest.User{
	{Email: "ana@example.com", EmailVerified: true, Name: "Ana"},
	{Email: "boss@example.com", EmailVerified: true, Name: "Boss"},
	{Email: "unverified@example.com", EmailVerified: false},
	{Email: "eve@elsewhere.org", EmailVerified: true},
	{Email: "dora@example.com", EmailVerified: true},
}

// startSSO starts the control plane with two real OpenID Connect providers,
// example.com allowed and boss@example.com a configured admin.
// configure may adjust the handlers further.
func startSSO(t testing.TB, configure ...func(h *handlers.Handlers)) (*testserver.Server, map[string]*oidctest.Provider) {
	t.Helper()
	return startSSOWith(t, testserver.Options{}, configure...)
}

// startSSOWith is startSSO with server options o (its Configure is replaced).
func startSSOWith(t testing.TB, o testserver.Options, configure ...func(h *handlers.Handlers)) (*testserver.Server, map[string]*oidctest.Provider) {
	t.Helper()
	ops := map[string]*oidctest.Provider{}
	o.Configure = func(url string, h *handlers.Handlers) {
		var cfgs []signin.ProviderConfig
		for _, name := range []string{"oidc", "corp"} {
			var users []oidctest.User
			for _, u := range ssoUsers {
				u.Subject = name + "|" + u.Email
				users = append(users, u)
			}
			op := oidctest.Start(t, []string{url + "/auth/" + name + "/callback"}, users...)
			ops[name] = op
			cfgs = append(cfgs, signin.ProviderConfig{Name: name, Kind: signin.KindOIDC, Label: strings.ToUpper(name),
				Issuer: op.Issuer, ClientID: op.ClientID, ClientSecret: op.ClientSecret})
		}
		ps, err := signin.New(url, cfgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		h.SignIn = ps
		h.Config.SignInPolicy = signin.Policy{AllowedDomains: []string{"example.com"}, Admins: []string{"boss@example.com"}}
		for _, c := range configure {
			c(h)
		}
	}
	return testserver.NewWith(t, o), ops
}

// browserClient keeps cookies and follows redirects, as a browser does.
func browserClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar}
}

// ssoSignIn signs email in through provider and returns the last response's
// status, path and body.
func ssoSignIn(t *testing.T, s *testserver.Server, ops map[string]*oidctest.Provider, c *http.Client, provider, email string) (int, string, string) {
	t.Helper()
	resp, body := ops[provider].SignIn(t, c, s.URL+"/auth/"+provider+"?next=/queue", email)
	return resp.StatusCode, resp.Request.URL.Path, body
}

func TestSSOSignIn(t *testing.T) {
	t.Parallel()
	s, ops := startSSO(t)

	type signIn struct{ provider, email string }
	type want struct {
		status int
		path   string
		text   string // in the final page
		role   string // of the user afterwards; "" when none exists
		idents int    // identities linked to the user
	}
	tests := map[string]struct {
		steps []signIn
		want  want
	}{
		"a verified member lands on the page asked for": {
			steps: []signIn{{"oidc", "ana@example.com"}},
			want:  want{status: 200, path: "/queue", text: `data-testid="nav-user"`, role: models.RoleMember, idents: 1},
		},
		"an unverified email is refused": {
			steps: []signIn{{"oidc", "unverified@example.com"}},
			want:  want{status: 403, path: "/auth/oidc/callback", text: "did not confirm a verified email"},
		},
		"a domain not allowed is refused": {
			steps: []signIn{{"oidc", "eve@elsewhere.org"}},
			want:  want{status: 403, path: "/auth/oidc/callback", text: "eve@elsewhere.org may not sign in here"},
		},
		"a configured admin becomes admin": {
			steps: []signIn{{"corp", "boss@example.com"}},
			want:  want{status: 200, path: "/queue", text: `href="/admin/users"`, role: models.RoleAdmin, idents: 1},
		},
		"a second provider with the same verified email links to the same user": {
			steps: []signIn{{"oidc", "dora@example.com"}, {"corp", "dora@example.com"}, {"corp", "dora@example.com"}},
			want:  want{status: 200, path: "/queue", text: `data-testid="nav-user"`, role: models.RoleMember, idents: 2},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var status int
			var path, body, email string
			for _, st := range tc.steps {
				status, path, body, email = 0, "", "", st.email
				status, path, body = ssoSignIn(t, s, ops, browserClient(), st.provider, st.email)
			}
			got := want{status: status, path: path, text: tc.want.text}
			if !strings.Contains(body, tc.want.text) {
				got.text = "(missing)"
			}
			u, err := models.GetUserByEmail(context.Background(), s.DB.Bun, email)
			if err == nil {
				got.role = u.Role
				ids, err := models.ListIdentities(context.Background(), s.DB.Bun, u.ID)
				if err != nil {
					t.Fatal(err)
				}
				got.idents = len(ids)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got)\n%s\nbody: %.400s", diff, body)
			}
		})
	}
}
