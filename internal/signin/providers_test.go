package signin_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/signin"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/oidctest"
)

// eventually polls cond until it holds and reports whether it did within limit.
func eventually(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); !cond(); <-time.After(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

func oidcConfig(name, issuer string) signin.ProviderConfig {
	return signin.ProviderConfig{Name: name, Kind: signin.KindOIDC, Issuer: issuer, ClientID: "gpusched-fake", ClientSecret: "gpusched-fake-secret"}
}

// Building providers calls none of them; a provider that accepts
// connections and never answers is reported unavailable, and Run stops as
// soon as its context ends.
func TestHangingProviderNeverBlocks(t *testing.T) {
	t.Parallel()
	hanging := oidctest.Hanging(t)
	start := time.Now()
	ps, err := signin.New("http://127.0.0.1:8080", []signin.ProviderConfig{oidcConfig("hang", hanging)}, nil)
	if err != nil || time.Since(start) > time.Second {
		t.Fatalf("New: %v after %s", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { ps.Run(ctx); close(done) }()
	if !eventually(5*time.Second, func() bool { return len(ps.Unavailable()) > 0 }) {
		t.Fatal("a hanging provider is not reported unavailable within 5 s")
	}
	if why := ps.Unavailable()["hang"]; !strings.Contains(why, "no answer") {
		t.Errorf("why: %q", why)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not stop within 2 s of its context ending")
	}
}

// A provider that is down at start is retried with backoff and usable once
// it is up; until then it is reported with its error.
func TestProviderDownAtStartComesBack(t *testing.T) {
	t.Parallel()
	addr := oidctest.Down(t)
	ps, err := signin.New("http://127.0.0.1:8080", []signin.ProviderConfig{oidcConfig("late", "http://"+addr)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { ps.Run(ctx); close(done) }()
	if !eventually(5*time.Second, func() bool { return strings.Contains(ps.Unavailable()["late"], "refused") }) {
		t.Fatalf("a provider that is down is not reported: %v", ps.Unavailable())
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the reserved port was taken meanwhile: %v", err)
	}
	oidctest.StartFakeOn(t, ln, oidctest.FakeOptions{})
	select {
	case <-done: // Run returns once every provider is ready
	case <-time.After(10 * time.Second):
		t.Fatal("the provider was not discovered within 10 s of coming up")
	}
	if ok, why := mustGet(t, ps, "late").Available(); !ok {
		t.Fatalf("available after coming up: %s", why)
	}
	if _, u, err := mustGet(t, ps, "late").Start(ctx, "/"); err != nil || !strings.HasPrefix(u, "http://"+addr+"/authorize?") {
		t.Fatalf("start: %q %v", u, err)
	}
}

// A discovery document that names another issuer is refused.
func TestDiscoveryIssuerMustMatch(t *testing.T) {
	t.Parallel()
	f := oidctest.StartFake(t, oidctest.FakeOptions{DiscoveryIssuer: "https://accounts.example"})
	ps, err := signin.New("http://127.0.0.1:8080", []signin.ProviderConfig{oidcConfig("liar", f.Issuer)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mustGet(t, ps, "liar").Start(context.Background(), "/"); err == nil || !strings.Contains(err.Error(), "names another issuer") {
		t.Fatalf("start with a lying discovery document: %v", err)
	}
}

func mustGet(t *testing.T, ps *signin.Providers, name string) *signin.Provider {
	t.Helper()
	p, ok := ps.Get(name)
	if !ok {
		t.Fatalf("no provider %s", name)
	}
	return p
}
