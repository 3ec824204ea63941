package handlers_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
)

// A handoff is good once, for its session, within HandoffTTL; a cookie
// for its session until SessionCookieTTL; nothing signed by another key.
func TestSessionHandoff(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	h := handlers.NewSessionHandoff(bytes.Repeat([]byte("k"), 32))
	other := handlers.NewSessionHandoff(bytes.Repeat([]byte("o"), 32))
	b := handlers.Bearer{UserID: 7, BrowserSession: 3}
	cases := []struct {
		name string
		run  func() error
		ok   bool
	}{
		{"in time", func() error { _, err := h.Redeem(h.Mint(b, 42, now), 42, now.Add(59*time.Second)); return err }, true},
		{"expired", func() error { _, err := h.Redeem(h.Mint(b, 42, now), 42, now.Add(handlers.HandoffTTL)); return err }, false},
		{"another session", func() error { _, err := h.Redeem(h.Mint(b, 42, now), 43, now); return err }, false},
		{"another key", func() error { _, err := h.Redeem(other.Mint(b, 42, now), 42, now); return err }, false},
		{"tampered", func() error { _, err := h.Redeem("8"+h.Mint(b, 42, now)[1:], 42, now); return err }, false},
		{"used twice", func() error {
			tok := h.Mint(b, 42, now)
			if _, err := h.Redeem(tok, 42, now); err != nil {
				return nil // the first must pass: fail the case
			}
			_, err := h.Redeem(tok, 42, now.Add(time.Second))
			return err
		}, false},
		{"cookie in time", func() error { _, err := h.CookieBearer(h.Cookie(b, 42, now), 42, now.Add(time.Hour)); return err }, true},
		{"cookie expired", func() error {
			_, err := h.CookieBearer(h.Cookie(b, 42, now), 42, now.Add(handlers.SessionCookieTTL))
			return err
		}, false},
		{"cookie of another session", func() error { _, err := h.CookieBearer(h.Cookie(b, 42, now), 43, now); return err }, false},
		{"a handoff is no cookie", func() error { _, err := h.CookieBearer(h.Mint(b, 42, now), 42, now); return err }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(); (err == nil) != c.ok {
				t.Errorf("error %v, want ok=%v", err, c.ok)
			}
		})
	}
	if got, err := h.Redeem(h.Mint(b, 42, now), 42, now); err != nil || got != b {
		t.Errorf("redeemed for %+v (%v), want %+v", got, err, b)
	}
}
