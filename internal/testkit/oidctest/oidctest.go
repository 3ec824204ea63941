// Package oidctest starts a real OpenID Connect provider for tests: the
// zitadel/oidc OP (pkg/op, with its example storage imported as a package)
// on a random loopback port, with a small login form (login.go) and the
// users a test defines (email, verified or not). SignIn drives the login over
// HTTP as a browser would; BrowserSignIn does it in Chromium.
package oidctest

import (
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// Password is every test user's password on the provider's login form.
const Password = "correct horse battery staple"

// User is one account at the provider.
type User struct {
	// Subject is the stable user id (the "sub" claim); default: the email.
	Subject string
	// Email is also the login name on the provider's form.
	Email         string
	EmailVerified bool
	Name          string
}

// Provider is a running OpenID Connect provider.
type Provider struct {
	// Issuer is the provider's issuer URL (discovery at Issuer/.well-known/openid-configuration).
	Issuer       string
	ClientID     string
	ClientSecret string
}

// Start runs a provider until t ends, with one confidential client allowed
// to redirect to redirectURIs, and users.
func Start(t testing.TB, redirectURIs []string, users ...User) *Provider {
	t.Helper()
	store := userStore{users: map[string]*storage.User{}, clientID: "gpusched-test"}
	for _, u := range users {
		sub := u.Subject
		if sub == "" {
			sub = u.Email
		}
		store.users[sub] = &storage.User{ID: sub, Username: u.Email, Password: Password, FirstName: u.Name,
			Email: u.Email, EmailVerified: u.EmailVerified, PreferredLanguage: language.English}
	}
	p := &Provider{ClientID: store.clientID, ClientSecret: "gpusched-test-secret"}
	clients := map[string]*storage.Client{p.ClientID: storage.WebClient(p.ClientID, p.ClientSecret, redirectURIs...)}
	srv := httptest.NewUnstartedServer(nil)
	p.Issuer = "http://" + srv.Listener.Addr().String()
	st := storage.NewStorageWithClients(store, clients)
	// Only options that leave the package's shared defaults alone: several
	// providers run at once in one test binary.
	provider, err := op.NewOpenIDProvider(p.Issuer, &op.Config{
		CryptoKey: sha256.Sum256([]byte("oidctest " + p.Issuer)), CodeMethodS256: true, AuthMethodPost: true,
		SupportedUILocales: []language.Tag{language.English},
	}, st, op.WithAllowInsecure())
	if err != nil {
		t.Fatalf("oidctest: provider: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/login/username", newLogin(st, op.AuthCallbackURL(provider), op.NewIssuerInterceptor(provider.IssuerFromRequest)))
	mux.Handle("/", provider)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// userStore is the example storage's user directory, filled by the test.
type userStore struct {
	users    map[string]*storage.User
	clientID string
}

func (s userStore) GetUserByID(id string) *storage.User { return s.users[id] }

func (s userStore) GetUserByUsername(name string) *storage.User {
	for _, u := range s.users {
		if u.Username == name {
			return u
		}
	}
	return nil
}

func (s userStore) ExampleClientID() string { return s.clientID }
