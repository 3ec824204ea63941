package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// HoldStats counts one user's holds by how they ended: the hit rate is the
// share of ended holds that a job used (consumed / (consumed + expired));
// canceled holds do not count either way.
type HoldStats struct {
	UserID   int64   `bun:"user_id" json:"user_id"`
	Email    string  `bun:"email" json:"email"`
	Total    int     `bun:"total" json:"total"`
	Active   int     `bun:"active" json:"active"`
	Consumed int     `bun:"consumed" json:"consumed"`
	Expired  int     `bun:"expired" json:"expired"`
	Canceled int     `bun:"canceled" json:"canceled"`
	HitRate  float64 `bun:"-" json:"hit_rate"`
	// HeldIdleS is the GPU-seconds held and not used: GPUs × (end − start)
	// of expired holds plus GPUs × (consumed − start) of consumed ones.
	HeldIdleS float64 `bun:"held_idle_s" json:"held_idle_s"`
}

// ListHoldStats returns every user's hold counts since a time, by user.
func ListHoldStats(ctx context.Context, db bun.IDB, since, now time.Time) ([]HoldStats, error) {
	var out []HoldStats
	err := db.NewRaw(`SELECT b.user_id, u.email, count(*) AS total,
		count(*) FILTER (WHERE b.consumed_at IS NULL AND b.canceled_at IS NULL AND b.expired_at IS NULL AND b.ends_at > ?) AS active,
		count(*) FILTER (WHERE b.consumed_at IS NOT NULL) AS consumed,
		count(*) FILTER (WHERE b.consumed_at IS NULL AND b.canceled_at IS NULL AND (b.expired_at IS NOT NULL OR b.ends_at <= ?)) AS expired,
		count(*) FILTER (WHERE b.canceled_at IS NOT NULL AND b.consumed_at IS NULL) AS canceled,
		coalesce(sum(b.gpu_count * extract(epoch FROM least(coalesce(b.canceled_at, b.ends_at), ?) - b.starts_at)), 0) AS held_idle_s
		FROM bookings b JOIN users u ON u.id = b.user_id
		WHERE b.kind = ? AND b.created_at >= ?
		GROUP BY b.user_id, u.email ORDER BY u.email`, now, now, now, BookingKindHold, since).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: hold stats: %w", err)
	}
	for i := range out {
		if ended := out[i].Consumed + out[i].Expired; ended > 0 {
			out[i].HitRate = float64(out[i].Consumed) / float64(ended)
		}
	}
	return out, nil
}
