package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// SeriesClash is one occurrence of a series that cannot be booked.
type SeriesClash struct {
	Index int // 1-based, by start
	Clash *ClashError
}

// SeriesClashError refuses a series: the occurrences whose GPUs are not
// free, each with whom it clashes. errors.Is(err, ErrBookingClash) holds.
type SeriesClashError struct {
	Total       int
	Occurrences []SeriesClash
}

// Error lists the clashing occurrences, in UTC (for logs); people read
// Sentence in their zone.
func (e *SeriesClashError) Error() string {
	return ErrBookingClash.Error() + ": " + e.Sentence(time.UTC)
}

// Sentence lists the clashing occurrences with times in loc.
func (e *SeriesClashError) Sentence(loc *time.Location) string {
	var parts []string
	for _, o := range e.Occurrences {
		parts = append(parts, fmt.Sprintf("occurrence %d (%s) clashes with %s", o.Index, localtime.Stamp(o.Clash.At, loc), o.Clash.Who(loc)))
	}
	return fmt.Sprintf("%d of the %d occurrences are not free: %s", len(e.Occurrences), e.Total, strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrBookingClash) true.
func (e *SeriesClashError) Is(target error) bool { return target == ErrBookingClash }

// CreateSeries books every occurrence in bs (same owner, GPUs and note) as
// one series in tx, under the booking lock, each checked for clashes with
// the stored bookings and the series' earlier occurrences. Nothing is
// written unless every occurrence fits: else a *SeriesClashError lists
// those that do not. The series counts as one booking toward maxLive.
func CreateSeries(ctx context.Context, tx bun.IDB, bs []*Booking, gpuIDs []int64, maxLive int, now time.Time) (int64, error) {
	if len(bs) == 0 {
		return 0, errors.New("models: create series: no occurrences")
	}
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(?)", int64(bookingLockKey)).Exec(ctx); err != nil {
		return 0, fmt.Errorf("models: create series: lock: %w", err)
	}
	owner := bs[0].UserID
	if err := checkLiveLimit(ctx, tx, owner, maxLive, now); err != nil {
		return 0, err
	}
	adm, err := loadBookingAdmission(ctx, tx, now, 0)
	if err != nil {
		return 0, fmt.Errorf("models: create series: %w", err)
	}
	serr := &SeriesClashError{Total: len(bs)}
	for i, b := range bs {
		req := &BookingRow{Booking: *b, GPUIDs: gpuIDs}
		req.ID = -int64(i + 1) // later occurrences name it "row N"
		if err := adm.admit(req); err != nil {
			var clash *ClashError
			if !errors.As(err, &clash) {
				return 0, err
			}
			serr.Occurrences = append(serr.Occurrences, SeriesClash{Index: i + 1, Clash: clash})
		}
	}
	if len(serr.Occurrences) > 0 {
		return 0, serr
	}
	var id int64
	if err := tx.NewRaw("SELECT nextval('booking_series_seq')").Scan(ctx, &id); err != nil {
		return 0, fmt.Errorf("models: create series: id: %w", err)
	}
	for _, b := range bs {
		b.Kind, b.SeriesID = BookingKindBooking, &id
		if _, err := tx.NewInsert().Model(b).Returning("*").Exec(ctx); err != nil {
			return 0, fmt.Errorf("models: create series: %w", err)
		}
		for _, g := range gpuIDs {
			if _, err := tx.NewRaw("INSERT INTO booking_gpus (booking_id, gpu_id) VALUES (?, ?)", b.ID, g).Exec(ctx); err != nil {
				return 0, fmt.Errorf("models: create series: GPU %d: %w", g, err)
			}
		}
	}
	if err := Audit(ctx, tx, &AuditEntry{ActorUserID: &owner, Action: "booking.series.create", TargetType: "booking_series",
		TargetID: fmt.Sprint(id), Details: map[string]any{"occurrences": len(bs), "gpu_count": bs[0].GPUCount, "gpu_ids": gpuIDs,
			"first": bs[0].StartsAt, "last": bs[len(bs)-1].EndsAt}}); err != nil {
		return 0, err
	}
	return id, Signal(ctx, tx, ChannelBookings, fmt.Sprintf("series:%d", id))
}

// checkLiveLimit refuses a new booking or series when the user already has
// maxLive upcoming or active ones (a series counts once; 0: no limit).
func checkLiveLimit(ctx context.Context, tx bun.IDB, userID int64, maxLive int, now time.Time) error {
	if maxLive <= 0 {
		return nil
	}
	n, err := liveBookingCount(ctx, tx, userID, now)
	if err != nil {
		return err
	}
	if n >= int64(maxLive) {
		noun := "bookings"
		if n == 1 {
			noun = "booking"
		}
		return fmt.Errorf("%w: you have %d upcoming or active %s, the most allowed is %d", ErrBookingLimit, n, noun, maxLive)
	}
	return nil
}

// CancelSeries cancels every occurrence of series id that has not ended,
// as its owner or an admin, in tx; it returns how many it canceled.
func CancelSeries(ctx context.Context, tx bun.IDB, id, actorID int64, admin bool, now time.Time) (int, error) {
	var bs []Booking
	if err := tx.NewSelect().Model(&bs).Where("series_id = ?", id).Where("kind = ?", BookingKindBooking).For("UPDATE").Scan(ctx); err != nil {
		return 0, fmt.Errorf("models: cancel series %d: %w", id, err)
	}
	if len(bs) == 0 {
		return 0, fmt.Errorf("models: series %d: %w", id, ErrNotFound)
	}
	if bs[0].UserID != actorID && !admin {
		return 0, fmt.Errorf("models: cancel series %d: %w", id, ErrNotOwner)
	}
	res, err := tx.NewUpdate().Model((*Booking)(nil)).Set("canceled_at = ?", now).Set("updated_at = ?", now).Set("sequence = sequence + 1").
		Where("series_id = ?", id).Where("kind = ?", BookingKindBooking).Where("canceled_at IS NULL").Where("ends_at > ?", now).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: cancel series %d: %w", id, err)
	}
	n, _ := res.RowsAffected()
	if err := Audit(ctx, tx, &AuditEntry{ActorUserID: &actorID, Action: "booking.series.cancel", TargetType: "booking_series",
		TargetID: fmt.Sprint(id), Details: map[string]any{"owner_id": bs[0].UserID, "canceled": n, "by_admin": bs[0].UserID != actorID}}); err != nil {
		return 0, err
	}
	return int(n), Signal(ctx, tx, ChannelBookings, fmt.Sprintf("series:%d", id))
}

// liveBookingCount is how many upcoming or active bookings a user has, a
// series counting once: what the live-booking limit counts.
func liveBookingCount(ctx context.Context, tx bun.IDB, userID int64, now time.Time) (int64, error) {
	var n int64
	err := liveBookings(tx.NewSelect().Model((*Booking)(nil))).ColumnExpr("count(DISTINCT COALESCE(booking.series_id, -booking.id))").
		Where("booking.kind = ?", BookingKindBooking).Where("booking.user_id = ?", userID).Where("booking.ends_at > ?", now).Scan(ctx, &n)
	if err != nil {
		return 0, fmt.Errorf("models: count live bookings: %w", err)
	}
	return n, nil
}
