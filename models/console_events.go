package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ConsoleJobEvent is a job's state move as the dev console prints it: the
// move with the job's name, owner and size.
type ConsoleJobEvent struct {
	ID        int64   `bun:"id"`
	JobID     int64   `bun:"job_id"`
	FromState *string `bun:"from_state"`
	ToState   string  `bun:"to_state"`
	Reason    string  `bun:"reason"`
	Name      string  `bun:"name"`
	Owner     string  `bun:"owner"`
	GPUs      int     `bun:"gpu_count"`
}

// JobEventsAfter returns at most limit job moves recorded after the move
// with id after, oldest first.
func JobEventsAfter(ctx context.Context, db bun.IDB, after int64, limit int) ([]ConsoleJobEvent, error) {
	var out []ConsoleJobEvent
	err := db.NewRaw(`SELECT e.id, e.job_id, e.from_state, e.to_state, e.reason, j.name, coalesce(u.email, '') AS owner, j.gpu_count
		FROM job_events e JOIN jobs j ON j.id = e.job_id LEFT JOIN users u ON u.id = j.owner_id
		WHERE e.id > ? ORDER BY e.id LIMIT ?`, after, limit).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: job moves after %d: %w", after, err)
	}
	return out, nil
}

// ConsoleBooking is a booking or hold as the dev console prints it.
type ConsoleBooking struct {
	ID       int64     `bun:"id"`
	Kind     string    `bun:"kind"`
	Owner    string    `bun:"owner"`
	GPUs     int       `bun:"gpu_count"`
	StartsAt time.Time `bun:"starts_at"`
	EndsAt   time.Time `bun:"ends_at"`
}

// BookingsAfter returns at most limit bookings and holds made after the one
// with id after, oldest first.
func BookingsAfter(ctx context.Context, db bun.IDB, after int64, limit int) ([]ConsoleBooking, error) {
	var out []ConsoleBooking
	err := db.NewRaw(`SELECT b.id, b.kind, coalesce(u.email, '') AS owner, b.gpu_count, b.starts_at, b.ends_at
		FROM bookings b LEFT JOIN users u ON u.id = b.user_id WHERE b.id > ? ORDER BY b.id LIMIT ?`, after, limit).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: bookings after %d: %w", after, err)
	}
	return out, nil
}

// ConsoleMarks returns the newest job move's and booking's ids: where a
// console starting now begins.
func ConsoleMarks(ctx context.Context, db bun.IDB) (jobEvent, booking int64, err error) {
	err = db.NewRaw(`SELECT (SELECT coalesce(max(id), 0) FROM job_events), (SELECT coalesce(max(id), 0) FROM bookings)`).Scan(ctx, &jobEvent, &booking)
	if err != nil {
		return 0, 0, fmt.Errorf("models: console marks: %w", err)
	}
	return jobEvent, booking, nil
}
