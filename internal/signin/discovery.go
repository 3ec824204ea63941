package signin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/pkg/client"
	"github.com/zitadel/oidc/v3/pkg/client/rp"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"golang.org/x/oauth2"
)

// idTokenLeeway is the clock skew allowed on an ID token's iat (zitadel
// applies it to exp the strict way: a token this close to expiry is refused).
const idTokenLeeway = 30 * time.Second

// allowedAlgs are the ID token signature algorithms accepted at all ("none"
// and the HMAC family never are: a public client could forge those).
var allowedAlgs = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// discovered is what an OpenID Connect provider's discovery document gave:
// the endpoints and the ID token verifier (its JWKS keys are cached by the
// key set and fetched again on an unknown key id).
type discovered struct {
	oauth    oauth2.Config
	verifier *rp.IDTokenVerifier
	userinfo string
}

// discover reads the provider's discovery document. The document must name
// exactly the configured issuer; the signature algorithms are those both
// sides accept (RS256 when the document names none).
func (p *Provider) discover(ctx context.Context) (*discovered, error) {
	doc, err := client.Discover(ctx, p.issuer, p.client)
	if errors.Is(err, oidc.ErrIssuerInvalid) {
		return nil, fmt.Errorf("signin: provider %s: the discovery document at %s names another issuer than %q", p.Name, p.issuer, p.issuer)
	}
	if err != nil {
		return nil, fmt.Errorf("signin: provider %s: discovery at %s: %w", p.Name, p.issuer, err)
	}
	if doc.AuthorizationEndpoint == "" || doc.TokenEndpoint == "" || doc.JwksURI == "" {
		return nil, fmt.Errorf("signin: provider %s: the discovery document lacks the authorization, token or jwks endpoint", p.Name)
	}
	algs := []string{"RS256"}
	if len(doc.IDTokenSigningAlgValuesSupported) > 0 {
		algs = algs[:0]
		for _, a := range doc.IDTokenSigningAlgValuesSupported {
			if slices.Contains(allowedAlgs, a) {
				algs = append(algs, a)
			}
		}
		if len(algs) == 0 {
			return nil, fmt.Errorf("signin: provider %s: it signs ID tokens only with %s; none is accepted here", p.Name, strings.Join(doc.IDTokenSigningAlgValuesSupported, ", "))
		}
	}
	keys := rp.NewRemoteKeySet(p.client, doc.JwksURI)
	opts := []rp.VerifierOption{rp.WithSupportedSigningAlgorithms(algs...), rp.WithIssuedAtOffset(idTokenLeeway),
		rp.WithIssuedAtMaxAge(FlowLifetime + idTokenLeeway)}
	if p.kind == KindGoogle {
		// Google documents both forms of its issuer in ID tokens.
		opts = append(opts, rp.WithISSVerifier(func(iss string) error {
			if iss != GoogleIssuer && iss != strings.TrimPrefix(GoogleIssuer, "https://") {
				return fmt.Errorf("%w: expected %s, got %s", oidc.ErrIssuerInvalid, GoogleIssuer, iss)
			}
			return nil
		}))
	}
	return &discovered{
		oauth: oauth2.Config{
			ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, RedirectURL: p.callback,
			Endpoint: oauth2.Endpoint{AuthURL: doc.AuthorizationEndpoint, TokenURL: doc.TokenEndpoint},
			Scopes:   []string{oidc.ScopeOpenID, oidc.ScopeEmail, oidc.ScopeProfile},
		},
		verifier: rp.NewIDTokenVerifier(p.issuer, p.cfg.ClientID, keys, opts...),
		userinfo: doc.UserinfoEndpoint,
	}, nil
}
