package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BookingCreate handles POST /api/v1/bookings: the caller claims GPUs (a
// count of a type, or named GPUs) for a window. It answers 201 with the
// booking; 409 naming the clash when the GPUs are taken then, or when the
// caller has as many bookings as allowed; 400/422 for bad input.
// Idempotency-Key makes retries safe.
func (h *Handlers) BookingCreate(c echo.Context) error {
	u := userOf(c)
	var r api.BookingRequest
	body, err := readJSON(c, &r)
	if err != nil {
		return err
	}
	var status int
	var out any
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		status, out, err = idempotent(c, tx, body, func(ctx context.Context) (int, any, error) {
			row, err := h.createBooking(ctx, tx, u, &r)
			if err != nil {
				return 0, nil, err
			}
			return http.StatusCreated, bookingJSON(row, h.Now()), nil
		})
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(status, out)
}

// createBooking validates r and creates the booking in tx; API and page
// share it.
func (h *Handlers) createBooking(ctx context.Context, tx *models.Tx, u *models.User, r *api.BookingRequest) (*models.BookingRow, error) {
	now := h.Now()
	lim, err := h.bookingLimits(ctx, tx)
	if err != nil {
		return nil, err
	}
	if r.GPUShare != 0 {
		return h.createShareBooking(ctx, tx, u, r, lim, now)
	}
	given, err := gpuIDsOf(ctx, tx, r.GPUIDs)
	if err != nil {
		return nil, err
	}
	b, ids, err := bookingFrom(u, r, given, lim, now)
	if err != nil {
		return nil, err
	}
	return h.insertBooking(ctx, tx, u, b, ids, lim, now)
}

// insertBooking creates the validated booking b with its named GPUs ids.
func (h *Handlers) insertBooking(ctx context.Context, tx *models.Tx, u *models.User, b *models.Booking, ids []int64, lim BookingLimits, now time.Time) (*models.BookingRow, error) {
	if err := models.CreateBooking(ctx, tx, b, ids, lim.MaxLive, now); err != nil {
		return nil, bookingError(err, userZone(u))
	}
	row := &models.BookingRow{Booking: *b, OwnerEmail: u.Email, GPUIDs: ids}
	if err := nameGPUs(ctx, tx, row); err != nil {
		return nil, err
	}
	return row, nil
}
