package oidctest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Mode is how a Fake provider misbehaves (or not) when it issues ID tokens.
type Mode string

// The fake provider's modes.
const (
	// Honest signs a correct ID token with the key its JWKS publishes.
	Honest Mode = "honest"
	// WrongKey signs with a key that is not in its JWKS (same key id).
	WrongKey Mode = "wrong-key"
	// AlgNone sends an unsigned token ("alg": "none").
	AlgNone Mode = "alg-none"
	// WrongIssuer puts another issuer in the token.
	WrongIssuer Mode = "wrong-iss"
	// WrongAudience issues the token to another client.
	WrongAudience Mode = "wrong-aud"
	// Expired issues a token that expired an hour ago.
	Expired Mode = "expired"
	// WrongNonce issues a token with another nonce (a replayed token).
	WrongNonce Mode = "wrong-nonce"
	// Cancel answers the authorization request with error=access_denied, as
	// when the person presses cancel.
	Cancel Mode = "cancel"
)

// FakeOptions shape a Fake provider's discovery document.
type FakeOptions struct {
	// NoUserinfo leaves the userinfo endpoint out of discovery (the ID
	// token is then the only word on who signed in).
	NoUserinfo bool
	// DiscoveryIssuer, when set, is the issuer the discovery document names
	// (a provider that claims to be another).
	DiscoveryIssuer string
}

// Fake is a small OpenID Connect provider written for tests: it signs
// whoever Next names in at once (no login form), and issues ID tokens as
// its Mode says. Its JWKS holds one RSA key.
type Fake struct {
	Issuer       string
	ClientID     string
	ClientSecret string

	opts  FakeOptions
	key   *rsa.PrivateKey
	kid   string
	old   *rsa.PrivateKey // the key before Rotate, still published
	wrong *rsa.PrivateKey

	mu     sync.Mutex
	mode   Mode
	next   User
	grants map[string]grant
	tokens map[string]User
}

type grant struct {
	user                       User
	nonce, challenge, redirect string
	mode                       Mode
}

var (
	keyOnce           sync.Once
	goodKey, otherKey *rsa.PrivateKey
)

// StartFake runs a fake provider until t ends, on a random loopback port.
func StartFake(t testing.TB, o FakeOptions) *Fake {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	f := newFake(t, "http://"+srv.Listener.Addr().String(), o)
	srv.Config.Handler = f
	srv.Start()
	t.Cleanup(srv.Close)
	return f
}

// StartFakeOn runs a fake provider on ln (a provider that comes up late on
// an address the relying party already knows).
func StartFakeOn(t testing.TB, ln net.Listener, o FakeOptions) *Fake {
	t.Helper()
	f := newFake(t, "http://"+ln.Addr().String(), o)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: f}}
	srv.Start()
	t.Cleanup(srv.Close)
	return f
}

func newFake(t testing.TB, issuer string, o FakeOptions) *Fake {
	keyOnce.Do(func() {
		var err error
		if goodKey, err = rsa.GenerateKey(rand.Reader, 2048); err == nil {
			otherKey, err = rsa.GenerateKey(rand.Reader, 2048)
		}
		if err != nil {
			panic(err)
		}
	})
	return &Fake{Issuer: issuer, ClientID: "gpusched-fake", ClientSecret: "gpusched-fake-secret", opts: o,
		key: goodKey, kid: "k1", wrong: otherKey, mode: Honest, grants: map[string]grant{}, tokens: map[string]User{}}
}

// Set makes the next sign-ins sign u in, with tokens issued as mode says.
func (f *Fake) Set(mode Mode, u User) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if u.Subject == "" {
		u.Subject = "fake|" + u.Email
	}
	f.mode, f.next = mode, u
}

// Rotate makes the provider sign with a new key (a new key id), publishing
// both; a relying party that cached the old key set must fetch it again.
func (f *Fake) Rotate() {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.old, f.key, f.kid = f.key, k, "k2"
}

func jwk(kid string, k *rsa.PrivateKey) map[string]any {
	return map[string]any{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
}

// ServeHTTP serves discovery, JWKS, authorize, token and userinfo.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/openid-configuration":
		f.discovery(w)
	case "/keys":
		f.mu.Lock()
		keys := []any{jwk(f.kid, f.key)}
		if f.old != nil {
			keys = append(keys, jwk("k1", f.old))
		}
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
	case "/authorize":
		f.authorize(w, r)
	case "/token":
		f.token(w, r)
	case "/userinfo":
		f.userinfo(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *Fake) discovery(w http.ResponseWriter) {
	iss := f.Issuer
	if f.opts.DiscoveryIssuer != "" {
		iss = f.opts.DiscoveryIssuer
	}
	doc := map[string]any{"issuer": iss, "authorization_endpoint": f.Issuer + "/authorize", "token_endpoint": f.Issuer + "/token",
		"jwks_uri": f.Issuer + "/keys", "response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"}}
	if !f.opts.NoUserinfo {
		doc["userinfo_endpoint"] = f.Issuer + "/userinfo"
	}
	writeJSON(w, http.StatusOK, doc)
}

func (f *Fake) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || q.Get("client_id") != f.ClientID || q.Get("code_challenge_method") != "S256" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	mode, user := f.mode, f.next
	out := url.Values{"state": {q.Get("state")}}
	if mode == Cancel {
		out.Set("error", "access_denied")
		out.Set("error_description", "the user canceled")
	} else {
		code := random()
		f.grants[code] = grant{user: user, nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirect: back.String(), mode: mode}
		out.Set("code", code)
	}
	f.mu.Unlock()
	back.RawQuery = out.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (f *Fake) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	if id, _ = url.QueryUnescape(id); id != f.ClientID || secret != f.ClientSecret && secret != url.QueryEscape(f.ClientSecret) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	f.mu.Lock()
	g, ok := f.grants[r.PostFormValue("code")]
	delete(f.grants, r.PostFormValue("code"))
	f.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
	if !ok || b64(sum[:]) != g.challenge || r.PostFormValue("redirect_uri") != g.redirect {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
		return
	}
	access := random()
	f.mu.Lock()
	f.tokens[access] = g.user
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600,
		"id_token": f.idToken(g)})
}

// idToken builds the ID token for g as its mode says.
func (f *Fake) idToken(g grant) string {
	now := time.Now()
	claims := map[string]any{"iss": f.Issuer, "sub": g.user.Subject, "aud": f.ClientID, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"nonce": g.nonce, "email": g.user.Email, "email_verified": g.user.EmailVerified, "name": g.user.Name}
	f.mu.Lock()
	key, kid, alg := f.key, f.kid, "RS256"
	f.mu.Unlock()
	switch g.mode {
	case WrongKey:
		key = f.wrong
	case AlgNone:
		alg = "none"
	case WrongIssuer:
		claims["iss"] = "https://evil.example"
	case WrongAudience:
		claims["aud"] = "someone-else"
	case Expired:
		claims["iat"], claims["exp"] = now.Add(-2*time.Hour).Unix(), now.Add(-time.Hour).Unix()
	case WrongNonce:
		claims["nonce"] = "replayed"
	}
	head, _ := json.Marshal(map[string]string{"alg": alg, "kid": kid, "typ": "JWT"})
	body, _ := json.Marshal(claims)
	signed := b64(head) + "." + b64(body)
	if alg == "none" {
		return signed + "."
	}
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		panic(err)
	}
	return signed + "." + b64(sig)
}

func (f *Fake) userinfo(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	u, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	f.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sub": u.Subject, "email": u.Email, "email_verified": u.EmailVerified, "name": u.Name})
}

// Hanging returns the URL of a provider that accepts connections and never
// answers; it stops when t ends.
func Hanging(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read or answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String()
}

// Down returns a loopback address where nothing listens now, reserved by
// briefly listening on it (StartFakeOn may bring a provider up there later).
func Down(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func random() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return b64(b)
}
