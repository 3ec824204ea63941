package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// BookingChange is an edit of a booking: the new window, GPUs and note
// (the caller merges what was asked with what was there and validates it).
// GPUIDs empty means GPUCount GPUs of the booking's type.
type BookingChange struct {
	StartsAt time.Time
	EndsAt   time.Time
	GPUCount int
	GPUIDs   []int64
	Note     string
}

// lockBooking reads booking id (kind booking) for update and checks that
// actorID may change it (its owner, or an admin) and that it has not ended
// or been canceled.
func lockBooking(ctx context.Context, tx bun.IDB, id, actorID int64, admin bool, now time.Time) (*Booking, error) {
	b := new(Booking)
	err := tx.NewSelect().Model(b).Where("id = ?", id).Where("kind = ?", BookingKindBooking).For("UPDATE").Scan(ctx)
	if errors.Is(err, errNoRows) {
		return nil, fmt.Errorf("booking %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("booking %d: %w", id, err)
	}
	if b.UserID != actorID && !admin {
		return nil, fmt.Errorf("booking %d: %w", id, ErrNotOwner)
	}
	if st := b.State(now); st == BookingEnded || st == BookingCanceled {
		return nil, fmt.Errorf("booking %d: it is already %s: %w", id, st, ErrBadTransition)
	}
	return b, nil
}

// EditBooking changes booking id as actorID (its owner, or any when admin)
// in tx: change turns the booking as it is, read under lock, into the
// change (merging a request and checking it). It takes the same advisory
// lock and applies the same admission as creation:
// the booking is checked against every other live booking and hold,
// never against itself. It bumps the booking's sequence, writes the audit
// entry (marking an admin's edit of someone else's booking) and signals the
// calendar and the scheduler. A clash is a *ClashError.
func EditBooking(ctx context.Context, tx *Tx, id, actorID int64, admin bool, change func(cur *BookingRow) (BookingChange, error), now time.Time) (*Booking, error) {
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(?)", int64(bookingLockKey)).Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: edit booking %d: lock: %w", id, err)
	}
	b, err := lockBooking(ctx, tx, id, actorID, admin, now)
	if err != nil {
		return nil, fmt.Errorf("models: edit %w", err)
	}
	var oldIDs []int64
	if err := tx.NewRaw("SELECT gpu_id FROM booking_gpus WHERE booking_id = ? ORDER BY gpu_id", id).Scan(ctx, &oldIDs); err != nil {
		return nil, fmt.Errorf("models: edit booking %d: GPUs: %w", id, err)
	}
	before := map[string]any{"starts_at": b.StartsAt, "ends_at": b.EndsAt, "gpu_count": b.GPUCount, "gpu_ids": oldIDs, "note": b.Note}
	ch, err := change(&BookingRow{Booking: *b, GPUIDs: oldIDs})
	if err != nil {
		return nil, err
	}
	adm, err := loadBookingAdmission(ctx, tx, now, id)
	if err != nil {
		return nil, fmt.Errorf("models: edit booking %d: %w", id, err)
	}
	b.StartsAt, b.EndsAt, b.Note = ch.StartsAt, ch.EndsAt, ch.Note
	b.GPUCount = ch.GPUCount
	if len(ch.GPUIDs) > 0 && b.GPUShare == 0 { // a share keeps its one GPU's slots
		b.GPUCount, b.GPUModel, b.NodeID = len(ch.GPUIDs), "", nil
	}
	if err := adm.admit(&BookingRow{Booking: *b, GPUIDs: ch.GPUIDs}); err != nil {
		return nil, err
	}
	b.Sequence++
	b.UpdatedAt = now
	if _, err := tx.NewUpdate().Model(b).Column("starts_at", "ends_at", "note", "gpu_count", "gpu_model", "node_id", "sequence", "updated_at").
		WherePK().Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: edit booking %d: %w", id, err)
	}
	if !slices.Equal(oldIDs, ch.GPUIDs) {
		if _, err := tx.NewRaw("DELETE FROM booking_gpus WHERE booking_id = ?", id).Exec(ctx); err != nil {
			return nil, fmt.Errorf("models: edit booking %d: GPUs: %w", id, err)
		}
		for _, g := range ch.GPUIDs {
			if _, err := tx.NewRaw("INSERT INTO booking_gpus (booking_id, gpu_id) VALUES (?, ?)", id, g).Exec(ctx); err != nil {
				return nil, fmt.Errorf("models: edit booking %d: GPU %d: %w", id, g, err)
			}
		}
	}
	details := map[string]any{"owner_id": b.UserID, "before": before, "after": map[string]any{"starts_at": b.StartsAt,
		"ends_at": b.EndsAt, "gpu_count": b.GPUCount, "gpu_ids": ch.GPUIDs, "note": b.Note}, "by_admin": b.UserID != actorID}
	if err := Audit(ctx, tx, &AuditEntry{ActorUserID: &actorID, Action: "booking.edit", TargetType: "booking",
		TargetID: fmt.Sprint(id), Details: details}); err != nil {
		return nil, err
	}
	if b.UserID != actorID { // an admin changed someone's booking: tell them
		reason := fmt.Sprintf("now %s to %s, %s", b.StartsAt.UTC().Format(time.RFC3339), b.EndsAt.UTC().Format(time.RFC3339), words.Count(b.GPUCount, "GPU"))
		if err := EmitBookingClashed(ctx, tx, b.ID, reason, fmt.Sprint(b.Sequence), now); err != nil {
			return nil, err
		}
	}
	return b, Signal(ctx, tx, ChannelBookings, fmt.Sprintf("booking:%d", b.ID))
}

// EndBooking ends an active booking now ("I'm done early"), as its owner or
// an admin: its GPUs are free at once, and the signal it sends wakes a
// scheduling pass so that the next queued job starts. An upcoming booking
// cannot be ended (cancel it): ErrBadTransition.
func EndBooking(ctx context.Context, tx bun.IDB, id, actorID int64, admin bool, now time.Time) (*Booking, error) {
	b, err := lockBooking(ctx, tx, id, actorID, admin, now)
	if err != nil {
		return nil, fmt.Errorf("models: end %w", err)
	}
	if b.StartsAt.After(now) {
		return nil, fmt.Errorf("models: end booking %d: it has not started yet; cancel it instead: %w", id, ErrBadTransition)
	}
	end := now.UTC().Truncate(time.Microsecond)
	if !end.After(b.StartsAt) {
		end = b.StartsAt.Add(time.Microsecond)
	}
	b.EndsAt, b.EndedEarlyAt, b.UpdatedAt = end, &now, now
	b.Sequence++
	if _, err := tx.NewUpdate().Model(b).Column("ends_at", "ended_early_at", "sequence", "updated_at").WherePK().Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: end booking %d: %w", id, err)
	}
	if err := Audit(ctx, tx, &AuditEntry{ActorUserID: &actorID, Action: "booking.end", TargetType: "booking",
		TargetID: fmt.Sprint(id), Details: map[string]any{"owner_id": b.UserID, "by_admin": b.UserID != actorID}}); err != nil {
		return nil, err
	}
	if err := Signal(ctx, tx, ChannelScheduler, fmt.Sprintf("booking-ended:%d", id)); err != nil {
		return nil, err
	}
	return b, Signal(ctx, tx, ChannelBookings, fmt.Sprintf("booking:%d", b.ID))
}

// SeriesBookings returns the occurrences of series id, canceled ones
// included, by start.
func SeriesBookings(ctx context.Context, db bun.IDB, id int64) ([]BookingRow, error) {
	var out []BookingRow
	if err := bookingRows(db).Where("booking.series_id = ?", id).OrderExpr("booking.starts_at, booking.id").Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("models: series %d: %w", id, err)
	}
	return out, nil
}
