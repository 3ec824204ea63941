package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Delivery states of a notification.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryDead      = "dead"
)

// Notification is one delivery of an event to one recipient over one
// channel; in-app notifications are the rows the bell reads.
type Notification struct {
	bun.BaseModel `bun:"table:notifications,alias:n"`

	ID          int64        `bun:"id,pk,autoincrement" json:"id"`
	UserID      *int64       `bun:"user_id" json:"user_id,omitempty"`
	ChannelID   *int64       `bun:"channel_id" json:"channel_id,omitempty"`
	ChannelType string       `bun:"channel_type,notnull" json:"channel_type"`
	Event       string       `bun:"event,notnull" json:"event"`
	Subject     string       `bun:"subject,notnull" json:"subject"`
	Payload     EventPayload `bun:"payload,type:jsonb,notnull" json:"payload"`
	State       string       `bun:"state,notnull" json:"state"`
	Attempts    int          `bun:"attempts,notnull" json:"attempts"`
	LastError   string       `bun:"last_error,notnull" json:"last_error,omitempty"`
	CreatedAt   time.Time    `bun:"created_at,notnull" json:"created_at"`
	DeliveredAt *time.Time   `bun:"delivered_at" json:"delivered_at,omitempty"`
	ReadAt      *time.Time   `bun:"read_at" json:"read_at,omitempty"`
	// ClaimedAt is when a worker last claimed the row to send it
	// (ClaimDelivery); the channel's rate limit counts claims.
	ClaimedAt *time.Time `bun:"claimed_at" json:"-"`
	DedupKey  string     `bun:"dedup_key,notnull" json:"-"`
}

// UnreadCount returns how many in-app notifications user has not read.
func UnreadCount(ctx context.Context, db bun.IDB, userID int64) (int, error) {
	n, err := db.NewSelect().Model((*Notification)(nil)).
		Where("user_id = ? AND channel_type = ? AND read_at IS NULL", userID, KindInApp).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: unread notifications of user %d: %w", userID, err)
	}
	return int(n), nil
}

// InAppNotifications returns a user's in-app notifications, newest first.
func InAppNotifications(ctx context.Context, db bun.IDB, userID int64, limit int) ([]Notification, error) {
	var out []Notification
	err := db.NewSelect().Model(&out).Where("user_id = ? AND channel_type = ?", userID, KindInApp).
		OrderExpr("id DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: notifications of user %d: %w", userID, err)
	}
	return out, nil
}

// MarkRead marks a user's in-app notifications read: the one id, or all when id is 0.
func MarkRead(ctx context.Context, db bun.IDB, userID, id int64, now time.Time) (int, error) {
	q := db.NewUpdate().Model((*Notification)(nil)).Set("read_at = ?", now).
		Where("user_id = ? AND channel_type = ? AND read_at IS NULL", userID, KindInApp)
	if id != 0 {
		q = q.Where("id = ?", id)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: mark notifications of user %d read: %w", userID, err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		if err := Signal(ctx, db, ChannelNotifications, fmt.Sprintf("%d", userID)); err != nil {
			return 0, err
		}
	}
	return int(n), nil
}

// Deliveries returns notifications sent over channels (not in-app): a
// user's own (userID > 0) or everyone's, newest first; state filters when set.
func Deliveries(ctx context.Context, db bun.IDB, userID int64, state string, limit int) ([]Notification, error) {
	var out []Notification
	q := db.NewSelect().Model(&out).Where("channel_type <> ?", KindInApp)
	if userID > 0 {
		q = q.Where("user_id = ?", userID)
	}
	if state != "" {
		q = q.Where("state = ?", state)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: deliveries: %w", err)
	}
	return out, nil
}

// GetNotification returns one notification.
func GetNotification(ctx context.Context, db bun.IDB, id int64) (*Notification, error) {
	n := new(Notification)
	if err := db.NewSelect().Model(n).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err, fmt.Sprintf("notification %d", id))
	}
	return n, nil
}
