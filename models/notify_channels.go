package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ChannelNotifications says a user's in-app notifications changed (payload:
// the user id); the bell listens.
const ChannelNotifications = "gpusched_notifications"

func init() { Channels = append(Channels, ChannelNotifications) }

// NotificationChannel is where a user's (or, without owner, the team's)
// notifications go: a webhook URL, a Slack incoming-webhook URL or an email
// address.
type NotificationChannel struct {
	bun.BaseModel `bun:"table:notification_channels,alias:nc"`

	ID            int64     `bun:"id,pk,autoincrement" json:"id"`
	UserID        *int64    `bun:"user_id" json:"user_id,omitempty"`
	Type          string    `bun:"type,notnull" json:"type"`
	Target        string    `bun:"target,notnull" json:"target"`
	Secret        string    `bun:"secret,notnull" json:"-"`
	RatePerMinute int       `bun:"rate_per_minute,notnull" json:"rate_per_minute"`
	CreatedAt     time.Time `bun:"created_at,notnull" json:"created_at"`
}

// CreateChannel stores a new channel.
func CreateChannel(ctx context.Context, db bun.IDB, ch *NotificationChannel) error {
	if ch.RatePerMinute <= 0 {
		ch.RatePerMinute = 30
	}
	if _, err := db.NewInsert().Model(ch).Returning("*").Exec(ctx); err != nil {
		return fmt.Errorf("models: create %s channel: %w", ch.Type, err)
	}
	return nil
}

// UserChannels returns a user's own channels, oldest first.
func UserChannels(ctx context.Context, db bun.IDB, userID int64) ([]NotificationChannel, error) {
	var out []NotificationChannel
	if err := db.NewSelect().Model(&out).Where("user_id = ?", userID).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: channels of user %d: %w", userID, err)
	}
	return out, nil
}

// GetChannel returns one channel.
func GetChannel(ctx context.Context, db bun.IDB, id int64) (*NotificationChannel, error) {
	ch := new(NotificationChannel)
	if err := db.NewSelect().Model(ch).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err, fmt.Sprintf("notification channel %d", id))
	}
	return ch, nil
}

// DeleteChannel removes a user's channel (and its deliveries).
func DeleteChannel(ctx context.Context, db bun.IDB, userID, id int64) error {
	res, err := db.NewDelete().Model((*NotificationChannel)(nil)).Where("id = ? AND user_id = ?", id, userID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: delete channel %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("models: delete channel %d: %w", id, ErrNotFound)
	}
	return nil
}

// EventTest is the name of the message sent by a channel's test button; it
// is not in the catalogue and no preference chooses it.
const EventTest = "notification.test"

// SendTest queues one test message to a channel, in the caller's transaction.
func SendTest(ctx context.Context, tx *Tx, ch *NotificationChannel, now time.Time) (int64, error) {
	ev := NotifyEvent{Name: EventTest, Subject: fmt.Sprintf("test:%d", now.UnixNano()), Payload: EventPayload{
		Event: EventTest, OccurredAt: now.UTC(), Title: "Test notification from GPUScheduler",
		Text: "If you can read this, the channel works."}}
	body, err := json.Marshal(ev.Payload)
	if err != nil {
		return 0, err
	}
	id, err := insertNotification(ctx, tx, &ev, ch.UserID, &ch.ID, ch.Type, fmt.Sprintf("channel:%d", ch.ID), body, now)
	if err != nil {
		return 0, err
	}
	return id, EnqueueDeliveries(ctx, tx, []int64{id})
}
