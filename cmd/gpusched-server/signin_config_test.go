package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/signin"
)

func TestSignInConfig(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "oidc-secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		env       map[string]string
		providers []signin.ProviderConfig
		policy    signin.Policy
		err       string
	}{
		"none": {},
		"all three, a secret from a file, who may join": {
			env: map[string]string{
				"GPUSCHED_OIDC_ISSUER": "https://sso.example.com/realms/lab", "GPUSCHED_OIDC_CLIENT_ID": "gpusched",
				"GPUSCHED_OIDC_CLIENT_SECRET_FILE": secret, "GPUSCHED_OIDC_NAME": "keycloak", "GPUSCHED_OIDC_LABEL": "Lab SSO",
				"GPUSCHED_GITHUB_CLIENT_ID": "gh", "GPUSCHED_GITHUB_CLIENT_SECRET": "ghs",
				"GPUSCHED_GOOGLE_CLIENT_ID": "go", "GPUSCHED_GOOGLE_CLIENT_SECRET": "gos",
				"GPUSCHED_ALLOWED_EMAIL_DOMAINS": "Example.com, @lab.example.org", "GPUSCHED_ALLOWED_EMAILS": "Guest@Else.org",
				"GPUSCHED_ADMINS": "Root@Example.com",
			},
			providers: []signin.ProviderConfig{
				{Name: "keycloak", Kind: signin.KindOIDC, Label: "Lab SSO", Issuer: "https://sso.example.com/realms/lab", ClientID: "gpusched", ClientSecret: "s3cret"},
				{Name: "github", Kind: signin.KindGitHub, ClientID: "gh", ClientSecret: "ghs"},
				{Name: "google", Kind: signin.KindGoogle, ClientID: "go", ClientSecret: "gos"},
			},
			policy: signin.Policy{AllowedDomains: []string{"example.com", "lab.example.org"}, AllowedEmails: []string{"guest@else.org"}, Admins: []string{"root@example.com"}},
		},
		"a client id without its secret": {
			env: map[string]string{"GPUSCHED_GITHUB_CLIENT_ID": "gh"},
			err: "GPUSCHED_GITHUB_*: signin: provider github: a client id and a client secret are required",
		},
		"an issuer that is not a URL": {
			env: map[string]string{"GPUSCHED_OIDC_ISSUER": "sso.example.com", "GPUSCHED_OIDC_CLIENT_ID": "a", "GPUSCHED_OIDC_CLIENT_SECRET": "b"},
			err: "must be an http(s) URL",
		},
		"an http issuer in production": {
			env: map[string]string{"GPUSCHED_OIDC_ISSUER": "http://sso.example.com", "GPUSCHED_OIDC_CLIENT_ID": "a", "GPUSCHED_OIDC_CLIENT_SECRET": "b"},
			err: "GPUSCHED_OIDC_ALLOW_INSECURE_ISSUER",
		},
		"an http loopback issuer without --dev": {
			env: map[string]string{"GPUSCHED_OIDC_ISSUER": "http://127.0.0.1:5556/dex", "GPUSCHED_OIDC_CLIENT_ID": "a", "GPUSCHED_OIDC_CLIENT_SECRET": "b"},
			err: "is plain http",
		},
		"an http issuer the operator allows": {
			env: map[string]string{"GPUSCHED_OIDC_ISSUER": "http://dex.internal:5556/dex", "GPUSCHED_OIDC_CLIENT_ID": "a", "GPUSCHED_OIDC_CLIENT_SECRET": "b",
				"GPUSCHED_OIDC_ALLOW_INSECURE_ISSUER": "true"},
			providers: []signin.ProviderConfig{{Name: "oidc", Kind: signin.KindOIDC, Issuer: "http://dex.internal:5556/dex", ClientID: "a", ClientSecret: "b"}},
		},
		"an http loopback issuer with --dev": {
			env:       map[string]string{"GPUSCHED_DEV": "true", "GPUSCHED_OIDC_ISSUER": "http://127.0.0.1:5556/dex", "GPUSCHED_OIDC_CLIENT_ID": "a", "GPUSCHED_OIDC_CLIENT_SECRET": "b"},
			providers: []signin.ProviderConfig{{Name: "oidc", Kind: signin.KindOIDC, Issuer: "http://127.0.0.1:5556/dex", ClientID: "a", ClientSecret: "b"}},
		},
		"a reserved name": {
			env: map[string]string{"GPUSCHED_OIDC_NAME": "dev", "GPUSCHED_OIDC_ISSUER": "https://x", "GPUSCHED_OIDC_CLIENT_ID": "a", "GPUSCHED_OIDC_CLIENT_SECRET": "b"},
			err: `provider name "dev"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := loadConfig(nil, envOf(tc.env))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.providers, c.SignIn); diff != "" {
				t.Errorf("providers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.policy, c.SignInPolicy); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
		})
	}
}
