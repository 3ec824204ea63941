// Package oidctest starts a real OpenID Connect provider for tests: the
// zitadel/oidc OP (its example storage and login UI, imported as packages)
// on a random loopback port, with the users a test defines (email, verified
// or not). SignIn drives its login form over HTTP as a browser would; page
// tests can fill the same form in Chromium (#username, #password).
package oidctest

import (
	"net/http/httptest"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
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
	srv.Config.Handler = exampleop.SetupServer(p.Issuer, storage.NewStorageWithClients(store, clients), nil, false)
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

// compile-time check that the login UI's storage is what SetupServer wants.
var _ exampleop.Storage = (*storage.Storage)(nil)
