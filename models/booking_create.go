package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// ErrBookingClash is returned when a booking's GPUs are already claimed by
// other bookings or holds for part of its window; the message names them.
var ErrBookingClash = errors.New("booking clash")

// ErrBookingLimit is returned when a user already has as many upcoming and
// active bookings as allowed.
var ErrBookingLimit = errors.New("booking limit reached")

// ErrBookingGPUs is returned when a booking asks for GPUs the cluster does
// not have (unknown ids, or more GPUs of a type than exist).
var ErrBookingGPUs = errors.New("no such GPUs")

// bookingLockKey is the advisory lock that serializes booking creation, so
// two concurrent requests cannot both claim the same GPUs.
const bookingLockKey = 0x6770_7573_626b // "gpusbk"

// CreateBooking inserts b (kind booking) for its owner in tx, with the
// named GPUs gpuIDs (empty: any b.GPUCount GPUs of b.GPUModel), after
// checking the owner's limit of live bookings (maxLive, 0: none) and that
// the cluster can honour it next to every live booking and hold (the
// scheduling core's admission, booking_admission.go).
// Creation is serialized by a transaction-scoped advisory lock. It writes
// the audit entry and signals the calendar and the scheduler.
func CreateBooking(ctx context.Context, tx bun.IDB, b *Booking, gpuIDs []int64, maxLive int, now time.Time) error {
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(?)", int64(bookingLockKey)).Exec(ctx); err != nil {
		return fmt.Errorf("models: create booking: lock: %w", err)
	}
	if err := checkLiveLimit(ctx, tx, b.UserID, maxLive, now); err != nil { // a series counts once (calendar)
		return err
	}
	adm, err := loadBookingAdmission(ctx, tx, now, 0)
	if err != nil {
		return fmt.Errorf("models: create booking: %w", err)
	}
	if err := adm.admit(&BookingRow{Booking: *b, GPUIDs: gpuIDs}); err != nil {
		return err
	}
	b.Kind = BookingKindBooking
	if _, err := tx.NewInsert().Model(b).Returning("*").Exec(ctx); err != nil {
		return fmt.Errorf("models: create booking: %w", err)
	}
	for _, id := range gpuIDs {
		if _, err := tx.NewRaw("INSERT INTO booking_gpus (booking_id, gpu_id) VALUES (?, ?)", b.ID, id).Exec(ctx); err != nil {
			return fmt.Errorf("models: create booking: GPU %d: %w", id, err)
		}
	}
	if err := Audit(ctx, tx, &AuditEntry{ActorUserID: &b.UserID, Action: "booking.create", TargetType: "booking",
		TargetID: fmt.Sprint(b.ID), Details: map[string]any{"gpu_count": b.GPUCount, "gpu_model": b.GPUModel, "gpu_share": b.GPUShare,
			"gpu_ids": gpuIDs, "starts_at": b.StartsAt, "ends_at": b.EndsAt}}); err != nil {
		return err
	}
	return Signal(ctx, tx, ChannelBookings, fmt.Sprintf("booking:%d", b.ID))
}

// describeGPUs says which GPUs a booking claims: "sim-1:2, sim-1:3" for
// named GPUs (node:index, as pages name them), else "2 H100 GPUs".
func describeGPUs(b *BookingRow, gpus []BookableGPU) string {
	if b.GPUShare > 0 {
		return describeShare(b, gpus)
	}
	if len(b.GPUIDs) == 0 {
		return fmt.Sprintf("%d %s", b.GPUCount, gpuWord(b.GPUCount, b.GPUModel))
	}
	var names []string
	for _, id := range b.GPUIDs {
		name := fmt.Sprintf("GPU %d", id)
		for i := range gpus {
			if gpus[i].ID == id {
				name = api.GPUName(gpus[i].NodeName, gpus[i].Index)
			}
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

func gpuWord(n int, model string) string {
	w := "GPUs"
	if n == 1 {
		w = "GPU"
	}
	if model != "" {
		return model + " " + w
	}
	return w
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
