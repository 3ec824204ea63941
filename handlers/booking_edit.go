package handlers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BookingEdit handles PATCH /api/v1/bookings/{id}: its owner (or an admin,
// audited) extends, shortens or moves a booking, changes its count, named
// GPUs or note. The same clash rule as creation: 409 naming the competing
// bookings; 400/422 naming the field.
func (h *Handlers) BookingEdit(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	var p api.BookingPatch
	if err := decodeJSON(c, &p); err != nil {
		return err
	}
	row, err := h.editBooking(c.Request().Context(), userOf(c), id, &p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, bookingJSON(row, h.Now()))
}

// editBooking validates p against booking id and applies it in one
// transaction; the API and the detail page share it.
func (h *Handlers) editBooking(ctx context.Context, u *models.User, id int64, p *api.BookingPatch) (*models.BookingRow, error) {
	now := h.Now()
	err := h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		lim, err := h.bookingLimits(ctx, tx)
		if err != nil {
			return err
		}
		var given *[]int64
		if p.GPUIDs != nil {
			ids, err := gpuIDsOf(ctx, tx, *p.GPUIDs)
			if err != nil {
				return err
			}
			given = &ids
		}
		_, err = models.EditBooking(ctx, tx, id, u.ID, u.IsAdmin(), func(cur *models.BookingRow) (models.BookingChange, error) {
			if cur.GPUShare > 0 && (p.GPUIDs != nil || p.GPUCount != nil) {
				return models.BookingChange{}, unprocessable(api.CodeInvalidField,
					"booking #%d is a share of one shared GPU: its GPU cannot change; change its times, or cancel it and book again", cur.ID)
			}
			return bookingChange(cur, p, given, lim, now, userZone(u))
		}, now)
		return err
	})
	if err != nil {
		return nil, editError(err, userZone(u))
	}
	row, err := models.GetBooking(ctx, h.DB.Bun, id)
	if err != nil {
		return nil, fromModel(err, "booking")
	}
	return row, nil
}

// bookingChange merges p, whose named GPUs have the ids given (nil: p
// names none), into cur and checks the result with the rules of creation;
// a start already past may stay as it is. Refusals name times in loc.
func bookingChange(cur *models.BookingRow, p *api.BookingPatch, given *[]int64, lim BookingLimits, now time.Time, loc *time.Location) (models.BookingChange, error) {
	lim = lim.WithDefaults()
	ch := models.BookingChange{StartsAt: cur.StartsAt.UTC(), EndsAt: cur.EndsAt.UTC(), GPUCount: cur.GPUCount, GPUIDs: cur.GPUIDs, Note: cur.Note}
	if p.StartsAt == nil && p.EndsAt == nil && p.GPUCount == nil && given == nil && p.Note == nil {
		return ch, invalid("body", "give at least one of starts_at, ends_at, gpu_count, gpu_ids, note")
	}
	// A time given to the minute of the current one (a form shows minutes)
	// leaves it as it is.
	sameMinute := func(a, b time.Time) bool { return a.UTC().Truncate(time.Minute).Equal(b.UTC().Truncate(time.Minute)) }
	if p.StartsAt != nil && !sameMinute(*p.StartsAt, cur.StartsAt) {
		ch.StartsAt = p.StartsAt.UTC().Truncate(time.Second)
	}
	if p.EndsAt != nil && !sameMinute(*p.EndsAt, cur.EndsAt) {
		ch.EndsAt = p.EndsAt.UTC().Truncate(time.Second)
	}
	if p.Note != nil {
		if ch.Note = strings.TrimSpace(*p.Note); len(ch.Note) > 500 {
			return ch, invalid("note", "is at most 500 characters")
		}
	}
	if given != nil {
		ids := slices.Compact(slices.Sorted(slices.Values(*given)))
		switch {
		case len(ids) != len(*given):
			return ch, invalid("gpu_ids", "names a GPU twice")
		case len(ids) > 0 && ids[0] < 1:
			return ch, invalid("gpu_ids", "GPU ids are positive numbers")
		case len(ids) > 0 && p.GPUCount != nil && *p.GPUCount != len(ids):
			return ch, invalid("gpu_count", "is %d but gpu_ids names %s; give one or the other", *p.GPUCount, words.Count(len(ids), "GPU"))
		}
		ch.GPUIDs = ids
		if len(ids) > 0 {
			ch.GPUCount = len(ids)
		}
	}
	if p.GPUCount != nil && (given == nil || len(*given) == 0) {
		if *p.GPUCount < 1 {
			return ch, invalid("gpu_count", "must be at least 1")
		}
		if given == nil && len(cur.GPUIDs) > 0 && *p.GPUCount != len(cur.GPUIDs) {
			return ch, invalid("gpu_count", "this booking names %s: change gpu_ids, or send \"gpu_ids\": [] to book a count", words.Count(len(cur.GPUIDs), "GPU"))
		}
		ch.GPUCount = *p.GPUCount
	}
	if given != nil && len(*given) == 0 {
		ch.GPUIDs = nil
	}
	switch {
	case !ch.EndsAt.After(ch.StartsAt):
		return ch, unprocessable(api.CodeInvalidWindow, "ends_at: the booking must end after it starts (%s is not after %s)",
			localtime.Stamp(ch.EndsAt, loc), localtime.Stamp(ch.StartsAt, loc))
	case !ch.EndsAt.After(now):
		return ch, unprocessable(api.CodeInvalidWindow, "ends_at: %s is in the past; to end the booking now, use end", localtime.Stamp(ch.EndsAt, loc))
	case !ch.StartsAt.Equal(cur.StartsAt.UTC()) && ch.StartsAt.Before(now.Add(-bookingStartSlack)):
		return ch, unprocessable(api.CodeInvalidWindow, "starts_at: %s is in the past; move the booking to now or later", localtime.Stamp(ch.StartsAt, loc))
	case ch.GPUCount > lim.MaxGPUs:
		return ch, unprocessable(api.CodeBookingTooLarge, "gpu_count: one booking may take at most %d GPUs, this one asks for %d", lim.MaxGPUs, ch.GPUCount)
	case ch.StartsAt.After(now.Add(lim.MaxAhead)):
		return ch, unprocessable(api.CodeBookingTooFar, "starts_at: bookings may start at most %s ahead", humanDuration(lim.MaxAhead))
	case ch.EndsAt.Sub(ch.StartsAt) > lim.MaxLength:
		return ch, unprocessable(api.CodeBookingTooLong, "ends_at: a booking may last at most %s, this one would last %s",
			humanDuration(lim.MaxLength), humanDuration(ch.EndsAt.Sub(ch.StartsAt)))
	}
	return ch, nil
}

// editError maps the model's refusals of an edit or an end to API errors,
// times in loc (the caller's zone).
func editError(err error, loc *time.Location) error {
	var clash *models.ClashError
	switch {
	case errors.As(err, &clash):
		return &APIError{Status: http.StatusConflict, Code: api.CodeBookingClash, Err: err,
			Message: "cannot change the booking: " + clash.Sentence(loc)}
	case errors.Is(err, models.ErrNotOwner):
		return &APIError{Status: http.StatusForbidden, Code: api.CodeForbidden, Err: err, Message: "only its owner or an admin may change a booking"}
	case errors.Is(err, models.ErrBadTransition):
		msg := err.Error()
		if i := strings.Index(msg, "booking "); i >= 0 {
			msg = msg[i:]
		}
		return &APIError{Status: http.StatusConflict, Code: api.CodeBadState, Err: err, Message: strings.TrimSuffix(msg, ": "+models.ErrBadTransition.Error())}
	}
	return bookingError(err, loc)
}
