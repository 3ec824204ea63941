package main

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/cli"
	"github.com/gpuscheduler/gpuscheduler/internal/signin"
)

// signInConfig reads the sign-in providers and who may sign in. Each
// provider is on when its client id is set; its secret may come from
// VAR_FILE. An http:// issuer is refused (tokens and codes would cross the
// network in clear) unless GPUSCHED_OIDC_ALLOW_INSECURE_ISSUER=true, or dev
// is on and the issuer is on loopback. Problems go to fail.
func signInConfig(getenv func(string) string, dev bool, fail func(string, ...any)) ([]signin.ProviderConfig, signin.Policy) {
	secret := func(name string) string {
		v, err := cli.SecretOrValue(name, getenv)
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
	issuer := strings.TrimSpace(getenv("GPUSCHED_OIDC_ISSUER"))
	if strings.HasPrefix(issuer, "http://") && !insecureIssuerAllowed(issuer, dev, getenv("GPUSCHED_OIDC_ALLOW_INSECURE_ISSUER")) {
		fail("GPUSCHED_OIDC_ISSUER: %q is plain http; use https, or set GPUSCHED_OIDC_ALLOW_INSECURE_ISSUER=true if you really mean it (a loopback issuer is fine with --dev)", issuer)
	}
	add("GPUSCHED_OIDC", signin.ProviderConfig{Name: name, Kind: signin.KindOIDC, Label: strings.TrimSpace(getenv("GPUSCHED_OIDC_LABEL")),
		Issuer: issuer})
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

// insecureIssuerAllowed reports whether an http:// issuer may be used: when
// the operator says so, or in dev mode on a loopback host.
func insecureIssuerAllowed(issuer string, dev bool, allow string) bool {
	if ok, _ := strconv.ParseBool(strings.TrimSpace(allow)); ok {
		return true
	}
	u, err := url.Parse(issuer)
	if err != nil || !dev {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}
