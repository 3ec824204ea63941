package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A claim says whether a delivery may be sent now: the channel's rate limit
// counts claims, sends still in flight included; quiet hours and a row no
// longer pending hold it back.
func TestClaimDelivery(t *testing.T) {
	t.Parallel()
	now := testdb.Now
	tests := map[string]struct {
		// before runs ahead of the claim of the second of two test
		// messages to the channel (ids[1]).
		before   func(t *testing.T, db *models.DB, owner *models.User, ids [2]int64)
		claimed  bool
		waitOver time.Duration // the wait is more than this (0: no wait)
	}{
		"the first claim of a quiet channel": {claimed: true},
		"a claim in flight fills the rate": {
			before: func(t *testing.T, db *models.DB, _ *models.User, ids [2]int64) {
				claim(t, db, ids[0], now.Add(-30*time.Second))
			},
			waitOver: 30 * time.Second,
		},
		"a failed attempt counts too": {
			before: func(t *testing.T, db *models.DB, _ *models.User, ids [2]int64) {
				claim(t, db, ids[0], now.Add(-30*time.Second))
				if err := models.RecordDelivery(t.Context(), db.Bun, ids[0], models.DeliveryPending, "503", now); err != nil {
					t.Fatal(err)
				}
			},
			waitOver: 30 * time.Second,
		},
		"a claim older than a minute does not count": {
			before: func(t *testing.T, db *models.DB, _ *models.User, ids [2]int64) {
				claim(t, db, ids[0], now.Add(-61*time.Second))
			},
			claimed: true,
		},
		"quiet hours": {
			before: func(t *testing.T, db *models.DB, owner *models.User, _ [2]int64) {
				start, end := now.Hour()*60, (now.Hour()*60+120)%(24*60)
				p := &models.NotificationPrefs{UserID: owner.ID, Events: map[string][]string{}, QuietStart: &start, QuietEnd: &end}
				if err := models.SavePrefs(t.Context(), db.Bun, p, now); err != nil {
					t.Fatal(err)
				}
			},
			waitOver: time.Hour,
		},
		"already delivered": {
			before: func(t *testing.T, db *models.DB, _ *models.User, ids [2]int64) {
				if err := models.RecordDelivery(t.Context(), db.Bun, ids[1], models.DeliveryDelivered, "", now); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			db := testdb.New(t)
			owner := testdb.User(t, db, models.RoleMember)
			ch := &models.NotificationChannel{UserID: &owner.ID, Type: models.KindWebhook, Target: "https://hooks.example/x", RatePerMinute: 1, CreatedAt: now}
			if err := models.CreateChannel(ctx, db.Bun, ch); err != nil {
				t.Fatal(err)
			}
			var ids [2]int64
			for i := range ids {
				err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) (err error) {
					ids[i], err = models.SendTest(ctx, tx, ch, now.Add(time.Duration(i)*time.Nanosecond))
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if tc.before != nil {
				tc.before(t, db, owner, ids)
			}
			var got models.DeliveryClaim
			err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) (err error) {
				got, err = models.ClaimDelivery(ctx, tx, ids[1], ch, now)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if (got.Notification != nil) != tc.claimed || (got.Wait > tc.waitOver) != (tc.waitOver > 0) {
				t.Fatalf("claim %+v: want claimed %v, a wait over %s", got, tc.claimed, tc.waitOver)
			}
			var claimedAt *time.Time
			if err := db.Bun.NewRaw(`SELECT claimed_at FROM notifications WHERE id = ?`, ids[1]).Scan(ctx, &claimedAt); err != nil {
				t.Fatal(err)
			}
			if (claimedAt != nil) != tc.claimed {
				t.Fatalf("claimed_at %v after a claim that sends: %v", claimedAt, tc.claimed)
			}
		})
	}
}

// claim claims notification id at the time given, as a worker about to send.
func claim(t *testing.T, db *models.DB, id int64, at time.Time) {
	t.Helper()
	err := db.InTx(t.Context(), func(ctx context.Context, tx *models.Tx) error {
		n, err := models.GetNotification(ctx, tx, id)
		if err != nil {
			return err
		}
		ch, err := models.GetChannel(ctx, tx, *n.ChannelID)
		if err != nil {
			return err
		}
		c, err := models.ClaimDelivery(ctx, tx, id, ch, at)
		if err == nil && c.Notification == nil {
			t.Fatalf("claim of %d at %s: %+v, want it claimed", id, at, c)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
