package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// BookingGet handles GET /api/v1/bookings/{id}: one booking, whoever owns
// it (the calendar is visible to everyone).
func (h *Handlers) BookingGet(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	row, err := models.GetBooking(c.Request().Context(), h.DB.Bun, id)
	if err != nil {
		return fromModel(err, "booking")
	}
	return c.JSON(http.StatusOK, bookingJSON(row, h.Now()))
}

// bookingOf reads booking id, a 404 when there is none.
func (h *Handlers) bookingOf(c echo.Context, id int64) (*models.BookingRow, error) {
	b, err := models.GetBooking(c.Request().Context(), h.DB.Bun, id)
	if err != nil {
		return nil, fromModel(err, "booking")
	}
	return b, nil
}
