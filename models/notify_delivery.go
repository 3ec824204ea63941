package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// A delivery over a channel goes in three steps, so that no network call
// runs inside a database transaction (jobs.NotifyDeliverWorker):
//
//  1. ClaimDelivery, in a short transaction under the channel's lock: the
//     recipient's quiet hours and the channel's rate limit may say to wait;
//     otherwise the claim is recorded (claimed_at), so the rate limit counts
//     it, and the transaction commits.
//  2. The message is sent, outside any transaction.
//  3. RecordDelivery stores the outcome in a statement of its own.
//
// A worker that dies between 1 and 3 leaves the row pending; River runs its
// job again and the message is sent again: deliveries are at least once
// (X-GPUSched-Delivery lets receivers drop the duplicate).

// channelLockClass is the first key of a channel's advisory lock.
const channelLockClass = 13

// DeliveryClaim is what ClaimDelivery decided.
type DeliveryClaim struct {
	// Notification is the claimed row, to send now; nil when there is
	// nothing to send (delivered, dead, or deleted with its channel) or
	// the send must wait.
	Notification *Notification
	// Wait, when positive, is how long to wait before claiming again:
	// the recipient's quiet hours, or the channel's rate limit.
	Wait time.Duration
}

// ClaimDelivery claims notification id for one send over ch, in tx, under
// the channel's lock: one claim of a channel at a time, so its rate limit
// holds across workers and replicas. The claim counts towards the rate
// limit once tx commits; the caller sends after the commit and records the
// outcome with RecordDelivery.
func ClaimDelivery(ctx context.Context, tx *Tx, id int64, ch *NotificationChannel, now time.Time) (DeliveryClaim, error) {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?, ?)`, channelLockClass, int32(ch.ID)); err != nil {
		return DeliveryClaim{}, fmt.Errorf("models: lock channel %d: %w", ch.ID, err)
	}
	n, err := GetNotification(ctx, tx, id)
	if errors.Is(err, ErrNotFound) {
		return DeliveryClaim{}, nil
	} else if err != nil {
		return DeliveryClaim{}, err
	}
	if n.State != DeliveryPending {
		return DeliveryClaim{}, nil
	}
	if n.UserID != nil {
		prefs, err := GetPrefs(ctx, tx, *n.UserID)
		if err != nil {
			return DeliveryClaim{}, err
		}
		if quiet, until := prefs.Quiet(now); quiet {
			return DeliveryClaim{Wait: until.Sub(now)}, nil
		}
	}
	claimed, err := tx.NewSelect().Model((*Notification)(nil)).
		Where("channel_id = ? AND claimed_at >= ?", ch.ID, now.Add(-time.Minute)).Count(ctx)
	if err != nil {
		return DeliveryClaim{}, fmt.Errorf("models: claims of channel %d: %w", ch.ID, err)
	}
	if ch.RatePerMinute > 0 && claimed >= int64(ch.RatePerMinute) {
		return DeliveryClaim{Wait: time.Minute / time.Duration(ch.RatePerMinute)}, nil
	}
	if _, err := tx.NewUpdate().Model((*Notification)(nil)).Set("claimed_at = ?", now).Where("id = ?", id).Exec(ctx); err != nil {
		return DeliveryClaim{}, fmt.Errorf("models: claim delivery %d: %w", id, err)
	}
	n.ClaimedAt = &now
	return DeliveryClaim{Notification: n}, nil
}

// RecordDelivery records the outcome of one delivery attempt of a pending
// notification: its new state and, on failure, the reason (shown to the
// user and the admin; it never holds secrets). A row no longer pending is
// left as it is.
func RecordDelivery(ctx context.Context, db bun.IDB, id int64, state, reason string, now time.Time) error {
	q := db.NewUpdate().Model((*Notification)(nil)).Set("state = ?", state).Set("attempts = attempts + 1").
		Set("last_error = ?", reason).Where("id = ? AND state = ?", id, DeliveryPending)
	if state == DeliveryDelivered {
		q = q.Set("delivered_at = ?", now)
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("models: record delivery %d: %w", id, err)
	}
	return nil
}

// PendingDeliveries returns ids of channel deliveries still pending that
// were created before t.
func PendingDeliveries(ctx context.Context, db bun.IDB, before time.Time, limit int) ([]int64, error) {
	var ids []int64
	err := db.NewSelect().Model((*Notification)(nil)).Column("id").
		Where("state = ? AND channel_type <> ? AND created_at < ?", DeliveryPending, KindInApp, before).
		OrderExpr("created_at").Limit(int64(limit)).Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("models: pending deliveries: %w", err)
	}
	return ids, nil
}
