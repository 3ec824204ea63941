package signin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/zitadel/oidc/v3/pkg/client/rp"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"golang.org/x/oauth2"
)

// TokenError is an ID token that failed verification: it signs nobody in.
type TokenError struct {
	Provider string
	Err      error
}

// Error says which provider's token failed and why.
func (e *TokenError) Error() string {
	return fmt.Sprintf("signin: %s: the ID token failed verification: %v", e.Provider, e.Err)
}

// Unwrap returns the verifier's error.
func (e *TokenError) Unwrap() error { return e.Err }

// completeOIDC exchanges the code and verifies the ID token.
func (p *Provider) completeOIDC(ctx context.Context, f Flow, code string) (Identity, error) {
	d, err := p.ready(ctx)
	if err != nil {
		return Identity{}, err
	}
	tok, err := d.oauth.Exchange(context.WithValue(ctx, oauth2.HTTPClient, p.client), code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return Identity{}, fmt.Errorf("signin: %s: exchange the code: %w", p.Name, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, &TokenError{Provider: p.Name, Err: fmt.Errorf("the token answer has no id_token")}
	}
	v := *d.verifier
	v.Nonce = func(context.Context) string { return f.Nonce }
	claims, err := rp.VerifyTokens[*oidc.IDTokenClaims](ctx, tok.AccessToken, raw, &v)
	if err != nil {
		return Identity{}, &TokenError{Provider: p.Name, Err: err}
	}
	id := Identity{Provider: p.Name, Subject: claims.Subject, Email: claims.Email,
		EmailVerified: bool(claims.EmailVerified), Name: claims.Name}
	// Providers that keep the email (or its verification) out of the ID
	// token answer it at userinfo, for the same subject.
	if (id.Email == "" || !id.EmailVerified) && d.userinfo != "" {
		info, err := p.userinfo(ctx, d.userinfo, tok.AccessToken)
		if err != nil {
			return Identity{}, err
		}
		if info.Subject != claims.Subject {
			return Identity{}, fmt.Errorf("signin: %s: userinfo names subject %q, the ID token %q", p.Name, info.Subject, claims.Subject)
		}
		id.Email, id.EmailVerified = info.Email, bool(info.EmailVerified)
		if id.Name == "" {
			id.Name = info.Name
		}
	}
	id.Email = strings.ToLower(strings.TrimSpace(id.Email))
	return id, nil
}

// userinfo reads the userinfo endpoint with the access token.
func (p *Provider) userinfo(ctx context.Context, endpoint, accessToken string) (*oidc.UserInfo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("signin: %s: userinfo: %w", p.Name, err)
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("signin: %s: userinfo: %w", p.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("signin: %s: userinfo: status %d", p.Name, resp.StatusCode)
	}
	var info oidc.UserInfo
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("signin: %s: userinfo: %w", p.Name, err)
	}
	return &info, nil
}
