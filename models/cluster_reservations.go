package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Reservation is a live booking or hold that names a GPU, as the overview
// shows it on the GPU's tile.
type Reservation struct {
	Kind string // BookingKindBooking or BookingKindHold
	By   string // the owner's name, or email when unnamed
}

// Reservations are what live bookings and holds reserve now: by GPU where
// they name GPUs or the last scheduling pass pinned GPUs to them
// (RecordBookingPins), else as counts (no pass has placed them yet).
type Reservations struct {
	ByGPU                      map[int64]Reservation
	UnnamedBooked, UnnamedHeld int // GPUs reserved by count only
}

// ClusterReservations reads the bookings and holds in force at now, in one
// query.
func ClusterReservations(ctx context.Context, db bun.IDB, now time.Time) (Reservations, error) {
	res := Reservations{ByGPU: map[int64]Reservation{}}
	var rows []struct {
		Kind     string  `bun:"kind"`
		By       string  `bun:"by"`
		GPUCount int     `bun:"gpu_count"`
		GPUIDs   []int64 `bun:"gpu_ids,array"`
	}
	err := db.NewRaw(`
SELECT b.kind, coalesce(nullif(u.name, ''), u.email) AS by, b.gpu_count,
    CASE WHEN b.gpu_share > 0 THEN coalesce(b.pinned_gpu_ids, '{}') -- the slots kept for a share, not all its GPU's
    ELSE coalesce(nullif(ARRAY(SELECT bg.gpu_id FROM booking_gpus bg WHERE bg.booking_id = b.id ORDER BY bg.gpu_id), '{}'),
             b.pinned_gpu_ids, '{}') END AS gpu_ids
FROM bookings b JOIN users u ON u.id = b.user_id
WHERE b.canceled_at IS NULL AND b.consumed_at IS NULL AND b.expired_at IS NULL
  AND b.starts_at <= ? AND b.ends_at > ?
ORDER BY b.starts_at, b.id`, now, now).Scan(ctx, &rows)
	if err != nil {
		return res, fmt.Errorf("models: cluster reservations: %w", err)
	}
	for _, r := range rows {
		if len(r.GPUIDs) == 0 {
			if r.Kind == BookingKindHold {
				res.UnnamedHeld += r.GPUCount
			} else {
				res.UnnamedBooked += r.GPUCount
			}
			continue
		}
		for _, id := range r.GPUIDs {
			if _, taken := res.ByGPU[id]; !taken {
				res.ByGPU[id] = Reservation{Kind: r.Kind, By: r.By}
			}
		}
	}
	return res, nil
}
