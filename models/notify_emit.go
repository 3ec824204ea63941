package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"
)

// QueueNotify is River's queue for deliveries: apart from the scheduler's, so
// a slow or failing channel never delays scheduling.
const QueueNotify = "notify"

// NotifyMaxAttempts is how many tries a delivery gets before it is dead.
var NotifyMaxAttempts = 6

// NotifyDeliverArgs is the River job that delivers one notification row
// (jobs.NotifyDeliverWorker works it).
type NotifyDeliverArgs struct {
	NotificationID int64 `json:"notification_id"`
}

// Kind names the job for River.
func (NotifyDeliverArgs) Kind() string { return "notify_deliver" }

// InsertOpts puts deliveries on their own queue, unique per notification.
func (NotifyDeliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueNotify, MaxAttempts: NotifyMaxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// Emit tells an event to its recipients in the caller's transaction: one
// notifications row per (recipient, channel) the recipient's preferences
// choose, deduplicated by (event, subject, channel), and one delivery job
// (NotifyDeliverArgs) per row that leaves the server, inserted in tx too.
// Nothing is sent if the transaction rolls back; nothing is lost once it
// commits. The notification's way from here is told at the catalogue
// (notify_events.go).
func Emit(ctx context.Context, tx *Tx, ev NotifyEvent, now time.Time) error {
	ev.Payload.Event = ev.Name
	if ev.Payload.OccurredAt.IsZero() {
		ev.Payload.OccurredAt = now.UTC()
	}
	users := slices.Clone(ev.Users)
	if slices.Contains(AdminEvents, ev.Name) {
		var admins []int64
		if err := tx.NewSelect().Table("users").Column("id").Where("role = ? AND disabled_at IS NULL", RoleAdmin).Scan(ctx, &admins); err != nil {
			return fmt.Errorf("models: admins for %s: %w", ev.Name, err)
		}
		users = append(users, admins...)
	}
	slices.Sort(users)
	users = slices.Compact(users)
	body, err := json.Marshal(ev.Payload)
	if err != nil {
		return fmt.Errorf("models: payload of %s: %w", ev.Name, err)
	}
	var deliveries []int64
	for _, uid := range users {
		prefs, err := GetPrefs(ctx, tx, uid)
		if err != nil {
			return err
		}
		kinds := prefs.Wants(ev.Name)
		if len(kinds) == 0 {
			continue
		}
		if slices.Contains(kinds, KindInApp) {
			id, err := insertNotification(ctx, tx, &ev, &uid, nil, KindInApp, fmt.Sprintf("in_app:%d", uid), body, now)
			if err != nil {
				return err
			}
			if id != 0 {
				if err := Signal(ctx, tx, ChannelNotifications, fmt.Sprintf("%d", uid)); err != nil {
					return err
				}
			}
		}
		chans, err := UserChannels(ctx, tx, uid)
		if err != nil {
			return err
		}
		for _, ch := range chans {
			if !slices.Contains(kinds, ch.Type) {
				continue
			}
			id, err := insertNotification(ctx, tx, &ev, &uid, &ch.ID, ch.Type, fmt.Sprintf("channel:%d", ch.ID), body, now)
			if err != nil {
				return err
			}
			if id != 0 {
				deliveries = append(deliveries, id)
			}
		}
	}
	if slices.Contains(TeamEvents, ev.Name) {
		team, err := TeamChannelsInUse(ctx, tx)
		if err != nil {
			return err
		}
		for _, ch := range team {
			id, err := insertNotification(ctx, tx, &ev, nil, &ch.ID, ch.Type, fmt.Sprintf("channel:%d", ch.ID), body, now)
			if err != nil {
				return err
			}
			if id != 0 {
				deliveries = append(deliveries, id)
			}
		}
	}
	return EnqueueDeliveries(ctx, tx, deliveries)
}

// EnqueueDeliveries inserts one delivery job per notification id in the
// caller's transaction.
func EnqueueDeliveries(ctx context.Context, tx *Tx, ids []int64) error {
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: NotifyDeliverArgs{NotificationID: id}}
	}
	if err := tx.InsertJobs(ctx, params); err != nil {
		return fmt.Errorf("models: enqueue %d deliveries: %w", len(ids), err)
	}
	return nil
}

// insertNotification inserts one row unless its deduplication key exists;
// it returns the new id, or 0 for a duplicate.
func insertNotification(ctx context.Context, db bun.IDB, ev *NotifyEvent, user, channel *int64, kind, chanKey string, payload []byte, now time.Time) (int64, error) {
	state, delivered := DeliveryPending, (*time.Time)(nil)
	if kind == KindInApp {
		state, delivered = DeliveryDelivered, &now
	}
	var id int64
	err := db.NewRaw(`INSERT INTO notifications (user_id, channel_id, channel_type, event, subject, payload, state, created_at, delivered_at, dedup_key)
		VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?) ON CONFLICT (dedup_key) DO NOTHING RETURNING id`,
		user, channel, kind, ev.Name, ev.Subject, string(payload), state, now, delivered, dedupKey(ev, chanKey)).Scan(ctx, &id)
	if errors.Is(err, errNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("models: record %s for %s: %w", ev.Name, kind, err)
	}
	return id, nil
}
