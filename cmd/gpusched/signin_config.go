package main

import (
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/signin"
)

// signInConfig reads the sign-in providers and who may sign in. Each
// provider is on when its client id is set; its secret may come from
// VAR_FILE. Problems go to fail.
func signInConfig(getenv func(string) string, fail func(string, ...any)) ([]signin.ProviderConfig, signin.Policy) {
	secret := func(name string) string {
		v, err := secretOrValue(name, getenv)
		if err != nil {
			fail("%v", err)
		}
		return strings.TrimSpace(v)
	}
	var out []signin.ProviderConfig
	add := func(prefix string, p signin.ProviderConfig) {
		p.ClientID = strings.TrimSpace(getenv(prefix + "_CLIENT_ID"))
		p.ClientSecret = secret(prefix + "_CLIENT_SECRET")
		if p.ClientID == "" && p.ClientSecret == "" && p.Issuer == "" {
			return
		}
		if err := p.Validate(); err != nil {
			fail("%s_*: %v", prefix, err)
			return
		}
		out = append(out, p)
	}
	name := strings.TrimSpace(getenv("GPUSCHED_OIDC_NAME"))
	if name == "" {
		name = signin.KindOIDC
	}
	add("GPUSCHED_OIDC", signin.ProviderConfig{Name: name, Kind: signin.KindOIDC, Label: strings.TrimSpace(getenv("GPUSCHED_OIDC_LABEL")),
		Issuer: strings.TrimSpace(getenv("GPUSCHED_OIDC_ISSUER"))})
	add("GPUSCHED_GITHUB", signin.ProviderConfig{Name: signin.KindGitHub, Kind: signin.KindGitHub})
	add("GPUSCHED_GOOGLE", signin.ProviderConfig{Name: signin.KindGoogle, Kind: signin.KindGoogle})
	policy := signin.Policy{
		AllowedDomains: splitList(strings.ToLower(getenv("GPUSCHED_ALLOWED_EMAIL_DOMAINS"))),
		AllowedEmails:  splitList(strings.ToLower(getenv("GPUSCHED_ALLOWED_EMAILS"))),
	}
	for i, d := range policy.AllowedDomains {
		policy.AllowedDomains[i] = strings.TrimPrefix(d, "@")
	}
	return out, policy
}
