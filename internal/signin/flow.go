package signin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
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

// Start begins a sign-in: a fresh flow and the provider's URL to send the
// browser to (with state, nonce and a PKCE challenge for OpenID Connect).
func (p *Provider) Start(next string) (Flow, string, error) {
	f := Flow{Provider: p.Name, State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), Next: next}
	sess, err := p.goth.BeginAuth(f.State)
	if err != nil {
		return Flow{}, "", fmt.Errorf("signin: %s: begin: %w", p.Name, err)
	}
	raw, err := sess.GetAuthURL()
	if err != nil {
		return Flow{}, "", fmt.Errorf("signin: %s: auth url: %w", p.Name, err)
	}
	if p.kind == KindGitHub {
		return f, raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Flow{}, "", fmt.Errorf("signin: %s: auth url: %w", p.Name, err)
	}
	q := u.Query()
	q.Set("nonce", f.Nonce)
	sum := sha256.Sum256([]byte(f.Verifier))
	q.Set("code_challenge", base64.RawURLEncoding.EncodeToString(sum[:]))
	q.Set("code_challenge_method", "S256")
	u.RawQuery = q.Encode()
	return f, u.String(), nil
}

// Complete finishes the flow f with the callback's query: it checks the
// state, exchanges the code (with the PKCE verifier), checks the nonce, and
// returns the identity with whether its email is verified.
func (p *Provider) Complete(ctx context.Context, f Flow, query url.Values) (Identity, error) {
	if e := query.Get("error"); e != "" {
		return Identity{}, fmt.Errorf("signin: %s refused: %s %s", p.Name, e, query.Get("error_description"))
	}
	if f.Provider != p.Name || f.State == "" || query.Get("state") != f.State || query.Get("code") == "" {
		return Identity{}, ErrFlow
	}
	sess, err := p.goth.BeginAuth(f.State)
	if err != nil {
		return Identity{}, fmt.Errorf("signin: %s: %w", p.Name, err)
	}
	params := url.Values{"code": {query.Get("code")}}
	if p.kind != KindGitHub {
		params.Set("code_verifier", f.Verifier)
	}
	if _, err := sess.Authorize(p.goth, params); err != nil {
		return Identity{}, fmt.Errorf("signin: %s: exchange the code: %w", p.Name, err)
	}
	u, err := p.goth.FetchUser(sess)
	if err != nil {
		return Identity{}, fmt.Errorf("signin: %s: fetch the user: %w", p.Name, err)
	}
	id := Identity{Provider: p.Name, Subject: u.UserID, Email: strings.ToLower(strings.TrimSpace(u.Email)), Name: u.Name}
	if p.kind == KindGitHub {
		id.Email, id.EmailVerified, err = p.githubEmail(ctx, u.AccessToken)
		if err != nil {
			return Identity{}, err
		}
	} else {
		if n, _ := u.RawData["nonce"].(string); n != f.Nonce {
			return Identity{}, ErrFlow
		}
		id.EmailVerified = claimTrue(u.RawData["email_verified"])
	}
	if id.Subject == "" {
		return Identity{}, fmt.Errorf("signin: %s: no subject in the answer", p.Name)
	}
	return id, nil
}

// claimTrue reads a boolean claim, which some providers send as a string.
func claimTrue(v any) bool {
	switch b := v.(type) {
	case bool:
		return b
	case string:
		return b == "true"
	}
	return false
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
