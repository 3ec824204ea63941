package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Booking states, derived from a booking's row at a moment.
const (
	BookingUpcoming = "upcoming"
	BookingActive   = "active"
	BookingEnded    = "ended"
	BookingCanceled = "canceled"
)

// BookingRow is a booking or hold as the calendar shows it: the row, its
// owner's email and the GPUs it names (none when it asks for a count).
type BookingRow struct {
	Booking
	OwnerEmail string  `bun:"owner_email"`
	GPUIDs     []int64 `bun:"gpu_ids,array"`
	// GPUNames name GPUIDs as node:index ("sim-node-1:4"), in their order.
	GPUNames []string `bun:"gpu_names,array"`
}

// State is the booking's state at now. A hold that was consumed or expired
// counts as ended.
func (b *Booking) State(now time.Time) string {
	switch {
	case b.CanceledAt != nil:
		return BookingCanceled
	case b.ConsumedAt != nil || b.ExpiredAt != nil || !b.EndsAt.After(now):
		return BookingEnded
	case b.StartsAt.After(now):
		return BookingUpcoming
	}
	return BookingActive
}

// liveBookings narrows q (alias booking) to bookings and holds that still
// claim GPUs at some time in their window: not canceled, and for holds
// neither consumed nor expired.
func liveBookings(q *bun.SelectQuery) *bun.SelectQuery {
	return q.Where("booking.canceled_at IS NULL").Where("booking.consumed_at IS NULL").Where("booking.expired_at IS NULL")
}

// bookingRows selects BookingRow columns: the row, the owner's email and
// the named GPUs, in one statement; scan it into a *[]BookingRow.
func bookingRows(db bun.IDB) *bun.SelectQuery {
	return db.NewSelect().Model((*Booking)(nil)).ColumnExpr("booking.*").ColumnExpr("u.email AS owner_email").
		ColumnExpr("ARRAY(SELECT bg.gpu_id FROM booking_gpus bg WHERE bg.booking_id = booking.id ORDER BY bg.gpu_id) AS gpu_ids").
		ColumnExpr(`ARRAY(SELECT x.name FROM (SELECT n.name || ':' || g.idx || CASE WHEN g.profile <> '' THEN '/' || g.profile ELSE '' END AS name, min(bg.gpu_id) AS first
FROM booking_gpus bg JOIN gpus g ON g.id = bg.gpu_id JOIN nodes n ON n.id = g.node_id
WHERE bg.booking_id = booking.id GROUP BY n.name, g.idx, g.profile, CASE WHEN g.kind = 'share' THEN 0 ELSE g.id END) x ORDER BY x.first) AS gpu_names`).
		Join("JOIN users AS u ON u.id = booking.user_id")
}

// ListBookings returns the live bookings and holds whose windows overlap
// [from, to), by start. userID 0 lists everyone's.
func ListBookings(ctx context.Context, db bun.IDB, from, to time.Time, userID int64) ([]BookingRow, error) {
	out := []BookingRow{}
	q := liveBookings(bookingRows(db)).Where("booking.starts_at < ?", to).Where("booking.ends_at > ?", from).
		OrderExpr("booking.starts_at, booking.id").Limit(2000)
	if userID != 0 {
		q = q.Where("booking.user_id = ?", userID)
	}
	if err := q.Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("models: list bookings: %w", err)
	}
	return out, nil
}

// GetBooking returns booking id (kind booking) with its owner and GPUs.
func GetBooking(ctx context.Context, db bun.IDB, id int64) (*BookingRow, error) {
	var out []BookingRow
	err := bookingRows(db).Where("booking.id = ?", id).Where("booking.kind = ?", BookingKindBooking).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: booking %d: %w", id, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("models: booking %d: %w", id, ErrNotFound)
	}
	return &out[0], nil
}

// ErrNotOwner is returned when a member acts on someone else's booking.
var ErrNotOwner = errors.New("not the owner")

// CancelBooking cancels booking id for userID (any user's when admin), in
// tx, writes the audit entry and signals the calendar and the scheduler.
// Canceling a booking that already ended or was canceled is
// ErrBadTransition.
func CancelBooking(ctx context.Context, tx bun.IDB, id, userID int64, admin bool, now time.Time) (*Booking, error) {
	b := new(Booking)
	err := tx.NewSelect().Model(b).Where("id = ?", id).Where("kind = ?", BookingKindBooking).For("UPDATE").Scan(ctx)
	if errors.Is(err, errNoRows) {
		return nil, fmt.Errorf("models: cancel booking %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("models: cancel booking %d: %w", id, err)
	}
	if b.UserID != userID && !admin {
		return nil, fmt.Errorf("models: cancel booking %d: %w", id, ErrNotOwner)
	}
	if st := b.State(now); st == BookingEnded || st == BookingCanceled {
		return nil, fmt.Errorf("models: cancel booking %d: it is already %s: %w", id, st, ErrBadTransition)
	}
	b.CanceledAt, b.UpdatedAt = &now, now
	b.Sequence++ // calendar feeds show the cancellation on refresh
	if _, err := tx.NewUpdate().Model(b).Column("canceled_at", "sequence", "updated_at").WherePK().Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: cancel booking %d: %w", id, err)
	}
	if err := Audit(ctx, tx, &AuditEntry{ActorUserID: &userID, Action: "booking.cancel", TargetType: "booking",
		TargetID: fmt.Sprint(id), Details: map[string]any{"owner_id": b.UserID}}); err != nil {
		return nil, err
	}
	return b, Signal(ctx, tx, ChannelBookings, fmt.Sprintf("booking:%d", b.ID))
}

// BookableGPU is a GPU the calendar offers, with its node's name.
type BookableGPU struct {
	ID       int64  `bun:"id"`
	NodeID   int64  `bun:"node_id"`
	NodeName string `bun:"node_name"`
	Index    int    `bun:"idx"`
	Model    string `bun:"model"`
	Profile  string `bun:"profile"` // a MIG device's ("1g.10gb"); "" for a whole GPU
	// Ways is, for a slot of a shared GPU (kind share), how many slots the
	// GPU is shared into; 0 for any other device.
	Ways int `bun:"ways"`
}

// ListBookableGPUs returns the present GPUs by node name and index.
func ListBookableGPUs(ctx context.Context, db bun.IDB) ([]BookableGPU, error) {
	var out []BookableGPU
	err := db.NewSelect().TableExpr("gpus AS g").Join("JOIN nodes AS n ON n.id = g.node_id").
		ColumnExpr("g.id, g.node_id, n.name AS node_name, g.idx, g.model, g.profile").
		ColumnExpr("CASE WHEN g.kind = 'share' THEN g.parent_slices ELSE 0 END AS ways").Where("g.present").
		OrderExpr("n.name, g.idx, g.id").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: bookable GPUs: %w", err)
	}
	return out, nil
}
