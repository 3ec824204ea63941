package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

func TestSessionKeyRotation(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	oldKey, newKey := bytes.Repeat([]byte("o"), 32), bytes.Repeat([]byte("n"), 32)
	seal := func(s *Sessions) *http.Cookie {
		rec := httptest.NewRecorder()
		if err := s.Login(echo.New().NewContext(httptest.NewRequest("GET", "/", nil), rec), 42); err != nil {
			t.Fatal(err)
		}
		return rec.Result().Cookies()[0]
	}
	open := func(s *Sessions, ck *http.Cookie) (int64, bool) {
		req := httptest.NewRequest("GET", "/", nil)
		req.AddCookie(ck)
		return s.UserID(req)
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
			if ok != tc.ok || (ok && id != 42) {
				t.Fatalf("got %d, %t; want ok=%t", id, ok, tc.ok)
			}
		})
	}

	// Sessions end at their lifetime.
	ck := seal(before)
	now = now.Add(time.Hour)
	if _, ok := open(before, ck); ok {
		t.Fatal("an expired session still opens")
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
