package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BookingsList handles GET /api/v1/bookings[?from=&to=&mine=1]: everyone's
// live bookings and holds whose windows overlap [from, to) (RFC 3339;
// default now to a week later), by start.
func (h *Handlers) BookingsList(c echo.Context) error {
	now := h.Now()
	from, to := now, time.Time{}
	var err error
	if s := c.QueryParam("from"); s != "" {
		if from, err = time.Parse(time.RFC3339, s); err != nil {
			return invalid("from", "must be an RFC 3339 time, got %q", s)
		}
	}
	to = from.Add(7 * 24 * time.Hour)
	if s := c.QueryParam("to"); s != "" {
		if to, err = time.Parse(time.RFC3339, s); err != nil {
			return invalid("to", "must be an RFC 3339 time, got %q", s)
		}
	}
	if !to.After(from) {
		return invalid("to", "must be after from")
	}
	var owner int64
	if c.QueryParam("mine") == "1" || c.QueryParam("mine") == "true" {
		owner = userOf(c).ID
	}
	rows, err := models.ListBookings(c.Request().Context(), h.DB.Bun, from, to, owner)
	if err != nil {
		return err
	}
	out := make([]api.Booking, len(rows))
	for i := range rows {
		out[i] = bookingJSON(&rows[i], now)
	}
	return c.JSON(http.StatusOK, map[string]any{"bookings": out})
}
