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
