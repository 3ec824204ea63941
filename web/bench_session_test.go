package web_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// BenchmarkSessionLookup is the cost a signed-in page pays to know who is
// asking: from the replica's cache (the usual case) and from the database
// (once per cache period, or after a revocation signal).
func BenchmarkSessionLookup(b *testing.B) {
	s := testserver.New(b)
	sessions := s.Handlers.Sessions.(*web.Sessions)
	ck := sessionCookieOf(b, s, s.Login(b, "ana@example.com"))
	req, _ := http.NewRequest("GET", s.URL+"/", nil)
	req.AddCookie(ck)
	ctx := context.Background()
	lookup := func(b *testing.B) {
		if _, ok, err := sessions.Lookup(ctx, req, "127.0.0.1"); !ok || err != nil {
			b.Fatalf("look-up: %t %v", ok, err)
		}
	}
	b.Run("cached", func(b *testing.B) {
		lookup(b)
		for b.Loop() {
			lookup(b)
		}
	})
	b.Run("database", func(b *testing.B) {
		for b.Loop() {
			sessions.ForgetSessions()
			lookup(b)
		}
	})
}

// sessionCookieOf returns the session cookie c holds for s.
func sessionCookieOf(tb testing.TB, s *testserver.Server, c *http.Client) *http.Cookie {
	tb.Helper()
	for _, ck := range c.Jar.Cookies(mustURL(tb, s.URL)) {
		if ck.Name == web.SessionCookie {
			return ck
		}
	}
	tb.Fatal("no session cookie")
	return nil
}
