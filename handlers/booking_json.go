package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func bookingJSON(b *models.BookingRow, now time.Time) api.Booking {
	return api.Booking{ID: b.ID, Kind: b.Kind, User: b.OwnerEmail, GPUCount: b.GPUCount, GPUModel: b.GPUModel, GPUShare: b.GPUShare,
		GPUIDs: b.GPUIDs, GPUNames: b.GPUNames, StartsAt: b.StartsAt.UTC(), EndsAt: b.EndsAt.UTC(), Note: b.Note, State: b.State(now), CreatedAt: b.CreatedAt.UTC(),
		SeriesID: b.SeriesID, Sequence: b.Sequence, UpdatedAt: b.UpdatedAt.UTC()}
}

// unprocessable returns a 422 for a well-formed request the rules refuse.
func unprocessable(code, format string, args ...any) error {
	return Errorf(http.StatusUnprocessableEntity, code, format, args...)
}

// bookingStartSlack lets a booking start a little in the past (a form
// filled in slowly); it then starts now.
const bookingStartSlack = 5 * time.Minute

// bookingFrom validates r, whose named GPUs have the ids given (see
// gpuIDsOf), against the limits at now and returns the booking to create
// and its named GPUs (sorted, without duplicates). Refusals name times in
// u's zone.
func bookingFrom(u *models.User, r *api.BookingRequest, given []int64, lim BookingLimits, now time.Time) (*models.Booking, []int64, error) {
	lim = lim.WithDefaults()
	model, note := strings.TrimSpace(r.GPUModel), strings.TrimSpace(r.Note)
	ids := slices.Compact(slices.Sorted(slices.Values(given)))
	n := r.GPUCount
	switch {
	case r.StartsAt.IsZero() || r.EndsAt.IsZero():
		return nil, nil, invalid("starts_at", "starts_at and ends_at are required (RFC 3339 times, e.g. 2026-11-23T09:00:00Z)")
	case len(ids) != len(given):
		return nil, nil, invalid("gpu_ids", "names a GPU twice")
	case len(ids) > 0 && ids[0] < 1:
		return nil, nil, invalid("gpu_ids", "GPU ids are positive numbers")
	case len(ids) > 0 && n != 0 && n != len(ids):
		return nil, nil, invalid("gpu_count", "is %d but gpu_ids names %s; give one or the other", n, words.Count(len(ids), "GPU"))
	case len(ids) > 0 && model != "":
		return nil, nil, invalid("gpu_model", "give a GPU type or specific GPUs, not both")
	case len(ids) == 0 && n < 1:
		return nil, nil, invalid("gpu_count", "must be at least 1 (or name GPUs in gpu_ids)")
	case len(model) > 100 || len(note) > 500:
		return nil, nil, invalid("note", "gpu_model is at most 100 characters and note at most 500")
	}
	if len(ids) > 0 {
		n = len(ids)
	}
	start, end := r.StartsAt.UTC().Truncate(time.Second), r.EndsAt.UTC().Truncate(time.Second)
	loc := userZone(u)
	switch {
	case !end.After(start):
		return nil, nil, unprocessable(api.CodeInvalidWindow, "the booking must end after it starts (%s is not after %s)",
			localtime.Stamp(end, loc), localtime.Stamp(start, loc))
	case !end.After(now):
		return nil, nil, unprocessable(api.CodeInvalidWindow, "the booking's window is over: it ended at %s", localtime.Stamp(end, loc))
	case start.Before(now.Add(-bookingStartSlack)):
		return nil, nil, unprocessable(api.CodeInvalidWindow, "the booking starts in the past (%s); book from now on", localtime.Stamp(start, loc))
	case n > lim.MaxGPUs:
		return nil, nil, unprocessable(api.CodeBookingTooLarge, "one booking may take at most %d GPUs, this one asks for %d", lim.MaxGPUs, n)
	case start.After(now.Add(lim.MaxAhead)):
		return nil, nil, unprocessable(api.CodeBookingTooFar, "bookings may start at most %s ahead", humanDuration(lim.MaxAhead))
	case end.Sub(start) > lim.MaxLength:
		return nil, nil, unprocessable(api.CodeBookingTooLong, "a booking may last at most %s, this one lasts %s", humanDuration(lim.MaxLength), humanDuration(end.Sub(start)))
	}
	if start.Before(now) {
		start = now.UTC().Truncate(time.Second)
	}
	return &models.Booking{UserID: u.ID, GPUCount: n, GPUModel: model, StartsAt: start, EndsAt: end, Note: note, Source: "calendar"}, ids, nil
}

// humanDuration writes d as "30 days", "72h" or "90m".
func humanDuration(d time.Duration) string {
	switch {
	case d >= 7*24*time.Hour && d%(24*time.Hour) == 0:
		return words.Count(int(d/(24*time.Hour)), "day")
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.Round(time.Minute).String()
}

// bookingError maps the model's refusals to API errors, times in loc (the
// caller's zone).
func bookingError(err error, loc *time.Location) error {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, ": "); ok {
		msg = after
	}
	var clash *models.ClashError
	if errors.As(err, &clash) {
		msg = clash.Sentence(loc)
	}
	switch {
	case errors.Is(err, models.ErrBookingClash):
		return &APIError{Status: http.StatusConflict, Code: api.CodeBookingClash, Err: err, Message: "cannot book: " + msg}
	case errors.Is(err, models.ErrBookingLimit):
		return &APIError{Status: http.StatusConflict, Code: api.CodeBookingLimit, Err: err, Message: msg + "; cancel one first"}
	case errors.Is(err, models.ErrBookingGPUs):
		return &APIError{Status: http.StatusUnprocessableEntity, Code: api.CodeNoSuchGPUs, Err: err, Message: "cannot book: " + msg}
	case errors.Is(err, models.ErrNotOwner):
		return &APIError{Status: http.StatusForbidden, Code: api.CodeForbidden, Err: err, Message: "only its owner or an admin may cancel a booking"}
	}
	return fromModel(err, "booking")
}
