package signin

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Provider kinds.
const (
	KindOIDC   = "oidc"
	KindGitHub = "github"
	KindGoogle = "google"
)

// GoogleIssuer is Google's OpenID Connect issuer; Google sign-in is OpenID Connect.
const GoogleIssuer = "https://accounts.google.com"

var providerName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// ProviderConfig is one sign-in provider from configuration.
type ProviderConfig struct {
	// Name is the provider's name in URLs (/auth/NAME) and in the identities table.
	Name string
	// Kind is KindOIDC, KindGitHub or KindGoogle.
	Kind string
	// Label is shown on the sign-in button ("Sign in with LABEL").
	Label string
	// Issuer is the OpenID Connect issuer URL (KindOIDC only).
	Issuer       string
	ClientID     string
	ClientSecret string
}

// Validate checks one provider's settings.
func (p ProviderConfig) Validate() error {
	if !providerName.MatchString(p.Name) || p.Name == "dev" || p.Name == "logout" {
		return fmt.Errorf("signin: provider name %q must be lower-case letters, digits and dashes (not dev or logout)", p.Name)
	}
	switch p.Kind {
	case KindOIDC:
		if !strings.HasPrefix(p.Issuer, "https://") && !strings.HasPrefix(p.Issuer, "http://") {
			return fmt.Errorf("signin: provider %s: the issuer %q must be an http(s) URL", p.Name, p.Issuer)
		}
	case KindGitHub, KindGoogle:
	default:
		return fmt.Errorf("signin: provider %s: unknown kind %q", p.Name, p.Kind)
	}
	if p.ClientID == "" || p.ClientSecret == "" {
		return fmt.Errorf("signin: provider %s: a client id and a client secret are required", p.Name)
	}
	return nil
}

// Policy says who may sign in and who becomes an admin. Emails and domains
// are lower-case.
type Policy struct {
	// AllowedDomains admit every verified email of these domains.
	AllowedDomains []string
	// AllowedEmails admit these addresses.
	AllowedEmails []string
	// Admins become admins when they first sign in, and may always sign in.
	Admins []string
}

// Allows reports whether a verified email may sign in as a new user. With no
// allowed domains or emails configured, only Admins may join (people already
// known are let in by the caller).
func (p Policy) Allows(email string) bool {
	email = strings.ToLower(email)
	if slices.Contains(p.AllowedEmails, email) || slices.Contains(p.Admins, email) {
		return true
	}
	_, domain, ok := strings.Cut(email, "@")
	return ok && slices.Contains(p.AllowedDomains, domain)
}

// IsAdmin reports whether email is one of the configured first admins.
func (p Policy) IsAdmin(email string) bool {
	return slices.Contains(p.Admins, strings.ToLower(email))
}
