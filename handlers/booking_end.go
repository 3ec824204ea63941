package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// BookingEnd handles POST /api/v1/bookings/{id}/end ("I'm done early"): its
// owner (or an admin, audited) ends an active booking now; the GPUs are free
// at once and a scheduling pass starts the next queued job. An upcoming
// booking is canceled, not ended: 409. Idempotency-Key makes retries safe.
func (h *Handlers) BookingEnd(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	var status int
	var out any
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		status, out, err = idempotent(c, tx, []byte(c.Param("id")), func(ctx context.Context) (int, any, error) {
			row, err := h.endBookingTx(ctx, tx, userOf(c), id)
			if err != nil {
				return 0, nil, err
			}
			return http.StatusOK, bookingJSON(row, h.Now()), nil
		})
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(status, out)
}

// endBooking ends booking id as u; the API and the detail page share it.
func (h *Handlers) endBooking(ctx context.Context, u *models.User, id int64) (*models.BookingRow, error) {
	var row *models.BookingRow
	err := h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		var err error
		row, err = h.endBookingTx(ctx, tx, u, id)
		return err
	})
	return row, err
}

// endBookingTx ends booking id as u in tx and reads it back.
func (h *Handlers) endBookingTx(ctx context.Context, tx *models.Tx, u *models.User, id int64) (*models.BookingRow, error) {
	if _, err := models.EndBooking(ctx, tx, id, u.ID, u.IsAdmin(), h.Now()); err != nil {
		return nil, editError(err, userZone(u))
	}
	row, err := models.GetBooking(ctx, tx, id)
	if err != nil {
		return nil, fromModel(err, "booking")
	}
	return row, nil
}
