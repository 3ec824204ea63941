package signin

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/markbates/goth/providers/github"
)

// discoveryTimeout bounds one attempt at a provider's discovery document.
const discoveryTimeout = 10 * time.Second

// Provider is one configured identity provider. OpenID Connect providers
// (and Google) are usable once their discovery document has been read
// (Providers.Run does it in the background; a sign-in that finds none tries
// once itself); until then Available reports why not.
type Provider struct {
	// Name is the provider's name in URLs and in the identities table.
	Name string
	// Label is shown on the sign-in button.
	Label string

	kind     string
	cfg      ProviderConfig
	issuer   string
	callback string
	github   *github.Provider
	client   *http.Client

	mu      sync.Mutex
	disc    *discovered
	lastErr error
	trying  time.Time // when the attempt under way started (zero: none)
}

// Providers are the configured identity providers, in configuration order.
type Providers struct {
	list   []*Provider
	byName map[string]*Provider
}

// New builds the providers without calling any of them: discovery happens in
// Run (or at the first sign-in), so a provider that is down or hangs never
// keeps the server from starting. The callback of provider NAME is
// baseURL/auth/NAME/callback. client makes the calls to the providers (nil: a
// client with a timeout).
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
		p := &Provider{Name: c.Name, Label: c.Label, kind: c.Kind, cfg: c, client: client,
			callback: strings.TrimRight(baseURL, "/") + "/auth/" + c.Name + "/callback"}
		switch c.Kind {
		case KindOIDC:
			p.issuer = c.Issuer
		case KindGoogle:
			p.issuer = GoogleIssuer
		case KindGitHub:
			p.github = github.New(c.ClientID, c.ClientSecret, p.callback, "read:user", "user:email")
			p.github.HTTPClient = client
		}
		if p.Label == "" {
			p.Label = map[string]string{KindOIDC: "single sign-on", KindGitHub: "GitHub", KindGoogle: "Google"}[c.Kind]
		}
		ps.list = append(ps.list, p)
		ps.byName[p.Name] = p
	}
	return ps, nil
}

// Run reads every OpenID Connect provider's discovery document, each in its
// own goroutine, retrying with backoff (1 s doubling to a minute) until it
// succeeds or ctx ends. It returns when all are ready or ctx ends.
func (ps *Providers) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, p := range ps.List() {
		if p.kind == KindGitHub {
			continue
		}
		wg.Go(func() {
			wait := time.Second
			for {
				if _, err := p.ready(ctx); err == nil {
					return
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
				wait = min(2*wait, time.Minute)
			}
		})
	}
	wg.Wait()
}

// ready returns the provider's discovery, reading it now (bounded by
// discoveryTimeout) when it has none yet.
func (p *Provider) ready(ctx context.Context) (*discovered, error) {
	p.mu.Lock()
	d := p.disc
	p.mu.Unlock()
	if d != nil {
		return d, nil
	}
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	p.mu.Lock()
	if p.trying.IsZero() {
		p.trying = time.Now()
	}
	p.mu.Unlock()
	d, err := p.discover(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trying = time.Time{}
	if err != nil {
		p.lastErr = err
		return nil, err
	}
	if p.disc == nil {
		p.disc, p.lastErr = d, nil
	}
	return p.disc, nil
}

// slowDiscovery is how long a discovery attempt may go unanswered before
// the provider is reported unavailable.
const slowDiscovery = 2 * time.Second

// Available reports whether the provider can take sign-ins now, and if not,
// why: its last discovery failed, or the attempt under way has had no
// answer for a while. A provider not tried yet counts as available.
func (p *Provider) Available() (bool, string) {
	if p.kind == KindGitHub {
		return true, ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.disc != nil:
		return true, ""
	case p.lastErr != nil:
		return false, p.lastErr.Error()
	case !p.trying.IsZero() && time.Since(p.trying) > slowDiscovery:
		return false, fmt.Sprintf("signin: provider %s: no answer from %s for %s", p.Name, p.issuer, time.Since(p.trying).Round(time.Second))
	}
	return true, ""
}

// Unavailable names the providers that cannot take sign-ins now, with why.
func (ps *Providers) Unavailable() map[string]string {
	out := map[string]string{}
	for _, p := range ps.List() {
		if ok, why := p.Available(); !ok {
			out[p.Name] = why
		}
	}
	return out
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
