package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The cookie's opaque id is sealed: keys rotate (new seals, old still open
// during rotation), a cookie past its lifetime does not open.
func TestSessionCookieKeyRotation(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	oldKey, newKey := bytes.Repeat([]byte("o"), 32), bytes.Repeat([]byte("n"), 32)
	seal := func(s *Sessions) *http.Cookie {
		v, err := s.seal(sessionPayload{ID: "opaque-42", Expires: now.Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return s.cookie(v, 3600)
	}
	open := func(s *Sessions, ck *http.Cookie) (string, bool) {
		req := httptest.NewRequest("GET", "/", nil)
		req.AddCookie(ck)
		return s.opaque(req)
	}
	before, _ := NewSessions([][]byte{oldKey}, true, time.Hour, clock)
	during, _ := NewSessions([][]byte{newKey, oldKey}, true, time.Hour, clock)
	after, _ := NewSessions([][]byte{newKey}, true, time.Hour, clock)
	old := seal(before)
	if !old.HttpOnly || !old.Secure || old.SameSite != http.SameSiteLaxMode {
		t.Fatalf("cookie flags: %+v", old)
	}

	tests := map[string]struct {
		s      *Sessions
		cookie *http.Cookie
		ok     bool
	}{
		"old cookie, old key":          {before, old, true},
		"old cookie during rotation":   {during, old, true},
		"old cookie after rotation":    {after, old, false},
		"new cookie after rotation":    {after, seal(during), true},
		"new cookie under the old key": {before, seal(during), false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			id, ok := open(tc.s, tc.cookie)
			if ok != tc.ok || (ok && id != "opaque-42") {
				t.Fatalf("got %q, %t; want ok=%t", id, ok, tc.ok)
			}
		})
	}

	// Cookies end at their lifetime.
	ck := seal(before)
	now = now.Add(time.Hour)
	if _, ok := open(before, ck); ok {
		t.Fatal("an expired session cookie still opens")
	}
}

func TestSessionKeysMustBeLong(t *testing.T) {
	t.Parallel()
	if _, err := NewSessions([][]byte{[]byte("short")}, false, time.Hour, time.Now); err == nil {
		t.Fatal("a 5-byte key was accepted")
	}
	if _, err := NewSessions(nil, false, time.Hour, time.Now); err == nil {
		t.Fatal("no key was accepted")
	}
}
