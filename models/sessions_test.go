package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A session is found by its opaque id's hash while live; ended, expired or
// another user's, it is not; old ones are pruned.
func TestSessionLifecycle(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	ana, bo := testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember)
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	mk := func(uid int64, opaque string, expires time.Time) *models.Session {
		s := &models.Session{TokenHash: models.SessionHash(opaque), UserID: uid, Via: "dev", ExpiresAt: expires, CreatedAt: now, LastSeenAt: now}
		if err := models.CreateSession(ctx, db.Bun, s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	live := mk(ana.ID, "live", now.Add(time.Hour))
	mk(ana.ID, "expired", now.Add(-time.Minute))
	other := mk(bo.ID, "bo", now.Add(time.Hour))

	got, err := models.LookupSession(ctx, db.Bun, models.SessionHash("live"), "10.0.0.7", now.Add(time.Minute))
	if err != nil || got.ID != live.ID || got.IP != "10.0.0.7" || !got.LastSeenAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("look up a live session: %+v %v", got, err)
	}
	if _, err := models.LookupSession(ctx, db.Bun, models.SessionHash("expired"), "", now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("an expired session: %v", err)
	}
	if err := models.EndSession(ctx, db.Bun, ana.ID, other.ID, now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("ending another user's session: %v", err)
	}
	list, err := models.ListSessions(ctx, db.Bun, ana.ID, now)
	if err != nil || len(list) != 1 || list[0].ID != live.ID {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := models.EndSessionByHash(ctx, db.Bun, models.SessionHash("live"), now); err != nil {
		t.Fatal(err)
	}
	if _, err := models.LookupSession(ctx, db.Bun, models.SessionHash("live"), "", now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("an ended session: %v", err)
	}
	if n, err := models.EndUserSessions(ctx, db.Bun, bo.ID, now); err != nil || n != 1 {
		t.Fatalf("end Bo's sessions: %d %v", n, err)
	}
	if n, err := models.DeleteOldSessions(ctx, db.Bun, now.Add(time.Second)); err != nil || n != 3 {
		t.Fatalf("prune: %d %v", n, err)
	}
}
