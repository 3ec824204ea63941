package signin

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/markbates/goth/providers/github"
	"golang.org/x/oauth2"
)

// httpTimeout bounds each call to a provider.
const httpTimeout = 15 * time.Second

// startTimeout bounds the discovery a sign-in tries itself when the
// background one has not succeeded yet (the person is waiting).
const startTimeout = 5 * time.Second

// FlowLifetime is how long a started sign-in may take to come back.
const FlowLifetime = 10 * time.Minute

// ErrFlow is a callback that does not match the flow it claims to finish
// (wrong or missing state, nonce, code): the browser should start again.
var ErrFlow = errors.New("signin: the sign-in did not match the one started here; start again")

// Flow is one sign-in in progress. The caller keeps it in a short-lived
// sealed cookie between Start and Complete.
type Flow struct {
	Provider string `json:"p"`
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"x"`
}

// Identity is who the provider says signed in.
type Identity struct {
	Provider      string
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
}

// ErrRefused is a callback carrying the provider's error= (most often the
// person pressed cancel there); Refusal says which.
var ErrRefused = errors.New("signin: the provider did not sign the person in")

// Refusal is the provider's error= callback, for a matching flow.
type Refusal struct {
	Provider, Code, Description string
}

// Error says what the provider answered.
func (r *Refusal) Error() string {
	return fmt.Sprintf("signin: %s answered %s %s", r.Provider, r.Code, r.Description)
}

// Unwrap makes a Refusal match ErrRefused.
func (r *Refusal) Unwrap() error { return ErrRefused }

// Start begins a sign-in: a fresh flow and the provider's URL to send the
// browser to (with state, and for OpenID Connect a nonce and a PKCE
// challenge). An OpenID Connect provider whose discovery has not been read
// yet is tried once now (bounded); if it still cannot be read, Start fails.
func (p *Provider) Start(ctx context.Context, next string) (Flow, string, error) {
	f := Flow{Provider: p.Name, State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), Next: next}
	if p.kind == KindGitHub {
		sess, err := p.github.BeginAuth(f.State)
		if err != nil {
			return Flow{}, "", fmt.Errorf("signin: %s: begin: %w", p.Name, err)
		}
		raw, err := sess.GetAuthURL()
		if err != nil {
			return Flow{}, "", fmt.Errorf("signin: %s: auth url: %w", p.Name, err)
		}
		return f, raw, nil
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	d, err := p.ready(ctx)
	if err != nil {
		return Flow{}, "", err
	}
	return f, d.oauth.AuthCodeURL(f.State, oauth2.S256ChallengeOption(f.Verifier), oauth2.SetAuthURLParam("nonce", f.Nonce)), nil
}

// Complete finishes the flow f with the callback's query. The state must
// match first (ErrFlow); then a provider's error= is a *Refusal; then the
// code is exchanged (with the PKCE verifier). For OpenID Connect the ID token
// is verified (signature against the provider's keys, algorithm, issuer,
// audience, authorized party, expiry, issue time, nonce, access token hash)
// and is the only source of the subject; the email comes from it, or from
// the userinfo endpoint for the same subject.
func (p *Provider) Complete(ctx context.Context, f Flow, query url.Values) (Identity, error) {
	if f.Provider != p.Name || f.State == "" || query.Get("state") != f.State {
		return Identity{}, ErrFlow
	}
	if e := query.Get("error"); e != "" {
		return Identity{}, &Refusal{Provider: p.Name, Code: e, Description: query.Get("error_description")}
	}
	if query.Get("code") == "" {
		return Identity{}, ErrFlow
	}
	if p.kind == KindGitHub {
		return p.completeGitHub(ctx, f, query.Get("code"))
	}
	if f.Nonce == "" || f.Verifier == "" {
		return Identity{}, ErrFlow
	}
	return p.completeOIDC(ctx, f, query.Get("code"))
}

// completeGitHub exchanges the code through goth and reads the primary email.
func (p *Provider) completeGitHub(ctx context.Context, f Flow, code string) (Identity, error) {
	sess, err := p.github.BeginAuth(f.State)
	if err != nil {
		return Identity{}, fmt.Errorf("signin: %s: %w", p.Name, err)
	}
	if _, err := sess.Authorize(p.github, url.Values{"code": {code}}); err != nil {
		return Identity{}, fmt.Errorf("signin: %s: exchange the code: %w", p.Name, err)
	}
	u, err := p.github.FetchUser(sess)
	if err != nil {
		return Identity{}, fmt.Errorf("signin: %s: fetch the user: %w", p.Name, err)
	}
	id := Identity{Provider: p.Name, Subject: u.UserID, Name: u.Name}
	if id.Email, id.EmailVerified, err = p.githubEmail(ctx, u.AccessToken); err != nil {
		return Identity{}, err
	}
	if id.Subject == "" {
		return Identity{}, fmt.Errorf("signin: %s: no subject in the answer", p.Name)
	}
	return id, nil
}

// githubEmail returns the primary email of the GitHub user and whether
// GitHub verified it.
func (p *Provider) githubEmail(ctx context.Context, accessToken string) (string, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, github.EmailURL, nil)
	if err != nil {
		return "", false, fmt.Errorf("signin: github emails: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := p.client.Do(req)
	if err != nil {
		return "", false, fmt.Errorf("signin: github emails: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", false, fmt.Errorf("signin: github emails: status %d", resp.StatusCode)
	}
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&emails); err != nil {
		return "", false, fmt.Errorf("signin: github emails: %w", err)
	}
	for _, e := range emails {
		if e.Primary {
			return strings.ToLower(e.Email), e.Verified, nil
		}
	}
	return "", false, nil
}

func random() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail (Go ≥ 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}
