package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BookingCancel handles DELETE /api/v1/bookings/{id}: its owner (or an
// admin) cancels a booking that has not ended; the GPUs go back to everyone.
func (h *Handlers) BookingCancel(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	row, err := h.cancelBooking(c, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, bookingJSON(row, h.Now()))
}

// bookingID reads the {id} path parameter.
func bookingID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, Errorf(http.StatusBadRequest, api.CodeInvalidPath, "booking id %q is not a positive number", c.Param("id"))
	}
	return id, nil
}

// cancelBooking cancels booking id as the signed-in user; API and page
// share it.
func (h *Handlers) cancelBooking(c echo.Context, id int64) (*models.BookingRow, error) {
	u := userOf(c)
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		_, err := models.CancelBooking(ctx, tx, id, u.ID, u.IsAdmin(), h.Now())
		return err
	})
	if err != nil {
		return nil, bookingError(err, userZone(u))
	}
	row, err := models.GetBooking(c.Request().Context(), h.DB.Bun, id)
	if err != nil {
		return nil, fromModel(err, "booking")
	}
	return row, nil
}
