package handlers_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A handoff is good once, for its session, within HandoffTTL, whichever
// replica (here: another SessionHandoff, even one of another key) redeems
// it; expired ones are pruned. A cookie is
// good for its session until SessionCookieTTL, and nothing signed by
// another key is.
func TestSessionHandoff(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	owner := testdb.User(t, db, models.RoleMember)
	job, next := testdb.Job(t, db, owner, 1).ID, testdb.Job(t, db, owner, 1).ID
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	h := handlers.NewSessionHandoff(bytes.Repeat([]byte("k"), 32))
	other := handlers.NewSessionHandoff(bytes.Repeat([]byte("o"), 32))
	b := handlers.Bearer{UserID: owner.ID, BrowserSession: 3}
	mint := func(job int64) string {
		t.Helper()
		tok, err := h.Mint(ctx, db.Bun, b, job, now)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	redeem := func(by *handlers.SessionHandoff, tok string, job int64, at time.Time) error {
		_, err := by.Redeem(ctx, db.Bun, tok, job, at)
		return err
	}
	cases := []struct {
		name string
		run  func() error
		ok   bool
	}{
		{"in time", func() error { return redeem(h, mint(job), job, now.Add(59*time.Second)) }, true},
		{"on another replica", func() error { return redeem(other, mint(job), job, now) }, true},
		{"expired", func() error { return redeem(h, mint(job), job, now.Add(handlers.HandoffTTL)) }, false},
		{"another session", func() error { return redeem(h, mint(job), next, now) }, false},
		{"tampered", func() error { tok := mint(job); return redeem(h, "A"+tok[1:], job, now) }, false},
		{"made up", func() error { return redeem(h, "x", job, now) }, false},
		{"used twice", func() error {
			tok := mint(job)
			if err := redeem(h, tok, job, now); err != nil {
				return nil // the first must pass: fail the case
			}
			return redeem(other, tok, job, now.Add(time.Second))
		}, false},
		{"cookie in time", func() error { _, err := h.CookieBearer(h.Cookie(b, job, now), job, now.Add(time.Hour)); return err }, true},
		{"cookie expired", func() error {
			_, err := h.CookieBearer(h.Cookie(b, job, now), job, now.Add(handlers.SessionCookieTTL))
			return err
		}, false},
		{"cookie of another session", func() error { _, err := h.CookieBearer(h.Cookie(b, job, now), next, now); return err }, false},
		{"cookie of another key", func() error { _, err := h.CookieBearer(other.Cookie(b, job, now), job, now); return err }, false},
		{"a handoff is no cookie", func() error { _, err := h.CookieBearer(mint(job), job, now); return err }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(); (err == nil) != c.ok {
				t.Errorf("error %v, want ok=%v", err, c.ok)
			}
		})
	}
	tok := mint(job)
	if got, err := h.Redeem(ctx, db.Bun, tok, job, now); err != nil || got != b {
		t.Errorf("redeemed for %+v (%v), want %+v", got, err, b)
	}
	// How handoffs are stored (only the hash) and pruned: models'
	// TestSessionHandoffStorage.
	mint(job)
	left, err := models.DeleteExpiredSessionHandoffs(ctx, db.Bun, now.Add(handlers.HandoffTTL))
	if err != nil || left == 0 {
		t.Errorf("pruned %d expired handoffs (%v), want the unspent ones", left, err)
	}
}
