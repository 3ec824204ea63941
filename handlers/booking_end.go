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
// booking is canceled, not ended: 409.
func (h *Handlers) BookingEnd(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	row, err := h.endBooking(c.Request().Context(), userOf(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, bookingJSON(row, h.Now()))
}

// endBooking ends booking id as u; the API and the detail page share it.
func (h *Handlers) endBooking(ctx context.Context, u *models.User, id int64) (*models.BookingRow, error) {
	err := h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		_, err := models.EndBooking(ctx, tx, id, u.ID, u.IsAdmin(), h.Now())
		return err
	})
	if err != nil {
		return nil, editError(err)
	}
	row, err := models.GetBooking(ctx, h.DB.Bun, id)
	if err != nil {
		return nil, fromModel(err, "booking")
	}
	return row, nil
}
