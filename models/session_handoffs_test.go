package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A handoff is stored as its token's SHA-256 only; it is spent once; the
// prune removes every expired one, spent or not, and keeps the live ones.
func TestSessionHandoffStorage(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	owner := testdb.User(t, db, models.RoleMember)
	job := testdb.Job(t, db, owner, 1).ID
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		token   string
		expires time.Time
	}{{"expiring-token", now.Add(time.Minute)}, {"live-token", now.Add(time.Hour)}} {
		if err := models.CreateSessionHandoff(ctx, db.Bun, tc.token, job, owner.ID, 3, tc.expires, now); err != nil {
			t.Fatal(err)
		}
	}
	var hashed, plain int
	if err := db.Bun.NewRaw(`SELECT count(*) FROM session_handoffs WHERE token_hash = sha256(convert_to(?, 'UTF8'))`, "expiring-token").Scan(ctx, &hashed); err != nil || hashed != 1 {
		t.Errorf("the token is not stored as its SHA-256 (%d rows, %v)", hashed, err)
	}
	if err := db.Bun.NewRaw(`SELECT count(*) FROM session_handoffs WHERE position(convert_to(?, 'UTF8') IN token_hash) > 0`, "expiring-token").Scan(ctx, &plain); err != nil || plain != 0 {
		t.Errorf("the token itself is stored (%d rows, %v)", plain, err)
	}
	if uid, browser, err := models.RedeemSessionHandoff(ctx, db.Bun, "expiring-token", job, now); err != nil || uid != owner.ID || browser != 3 {
		t.Errorf("redeem: user %d browser %d (%v)", uid, browser, err)
	}
	if _, _, err := models.RedeemSessionHandoff(ctx, db.Bun, "expiring-token", job, now); err == nil {
		t.Error("a handoff was redeemed twice")
	}
	if err := models.CreateSessionHandoff(ctx, db.Bun, "unspent-expiring", job, owner.ID, 3, now.Add(time.Minute), now); err != nil {
		t.Fatal(err)
	}
	pruned, err := models.DeleteExpiredSessionHandoffs(ctx, db.Bun, now.Add(2*time.Minute))
	if err != nil || pruned != 1 {
		t.Errorf("pruned %d (%v), want the one unspent expired handoff", pruned, err)
	}
	var left int
	if err := db.Bun.NewRaw(`SELECT count(*) FROM session_handoffs`).Scan(ctx, &left); err != nil || left != 1 {
		t.Errorf("%d handoffs left after the prune (%v), want the live one", left, err)
	}
}
