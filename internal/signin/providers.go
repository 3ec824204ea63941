package signin

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/markbates/goth"
	"github.com/markbates/goth/providers/github"
	"github.com/markbates/goth/providers/openidConnect"
)

// Provider is one configured identity provider.
type Provider struct {
	// Name is the provider's name in URLs and in the identities table.
	Name string
	// Label is shown on the sign-in button.
	Label string

	kind   string
	goth   goth.Provider
	client *http.Client
}

// Providers are the configured identity providers, in configuration order.
type Providers struct {
	list   []*Provider
	byName map[string]*Provider
}

// New builds the providers; OpenID Connect ones (and Google) read their
// issuer's discovery document now, so a wrong issuer fails at start. The
// callback of provider NAME is baseURL/auth/NAME/callback. client makes the
// calls to the providers (nil: a default client with a timeout).
func New(baseURL string, cfgs []ProviderConfig, client *http.Client) (*Providers, error) {
	if client == nil {
		client = &http.Client{Timeout: httpTimeout}
	}
	ps := &Providers{byName: map[string]*Provider{}}
	for _, c := range cfgs {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		if _, dup := ps.byName[c.Name]; dup {
			return nil, fmt.Errorf("signin: provider %s is configured twice", c.Name)
		}
		callback := strings.TrimRight(baseURL, "/") + "/auth/" + c.Name + "/callback"
		p := &Provider{Name: c.Name, Label: c.Label, kind: c.Kind, client: client}
		switch c.Kind {
		case KindOIDC, KindGoogle:
			issuer := c.Issuer
			if c.Kind == KindGoogle {
				issuer = GoogleIssuer
			}
			o, err := newOIDC(c, issuer, callback, client)
			if err != nil {
				return nil, err
			}
			p.goth = o
		case KindGitHub:
			g := github.New(c.ClientID, c.ClientSecret, callback, "read:user", "user:email")
			g.HTTPClient = client
			p.goth = g
		}
		if p.Label == "" {
			p.Label = map[string]string{KindOIDC: "single sign-on", KindGitHub: "GitHub", KindGoogle: "Google"}[c.Kind]
		}
		ps.list = append(ps.list, p)
		ps.byName[p.Name] = p
	}
	return ps, nil
}

func newOIDC(c ProviderConfig, issuer, callback string, client *http.Client) (*openidConnect.Provider, error) {
	discovery := strings.TrimRight(issuer, "/") + "/.well-known/openid-configuration"
	o, err := openidConnect.New(c.ClientID, c.ClientSecret, callback, discovery, "openid", "email", "profile")
	if err != nil {
		return nil, fmt.Errorf("signin: provider %s: discovery at %s: %w", c.Name, discovery, err)
	}
	o.SetName(c.Name)
	o.HTTPClient = client
	return o, nil
}

// List returns the providers in configuration order.
func (ps *Providers) List() []*Provider {
	if ps == nil {
		return nil
	}
	return ps.list
}

// Get returns the provider named name.
func (ps *Providers) Get(name string) (*Provider, bool) {
	if ps == nil {
		return nil, false
	}
	p, ok := ps.byName[name]
	return p, ok
}
