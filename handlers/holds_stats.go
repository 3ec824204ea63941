package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// HoldsStats handles GET /api/v1/holds/stats (admins): per user, how many
// holds were used by a job, expired unused or canceled, the hit rate, and
// the GPU-seconds held idle, over ?days= (default 7).
func (h *Handlers) HoldsStats(c echo.Context) error {
	days := 7
	if s := c.QueryParam("days"); s != "" {
		if err := echo.QueryParamsBinder(c).Int("days", &days).BindError(); err != nil || days < 1 || days > 365 {
			return invalid("days", "must be 1–365")
		}
	}
	now := h.Now()
	since := now.Add(-time.Duration(days) * 24 * time.Hour)
	rows, err := models.ListHoldStats(c.Request().Context(), h.DB.Bun, since, now)
	if err != nil {
		return err
	}
	out := api.HoldStats{Since: since, Users: make([]api.HoldStat, 0, len(rows))}
	for _, r := range rows {
		out.Users = append(out.Users, api.HoldStat{UserID: r.UserID, Email: r.Email, Total: r.Total, Active: r.Active,
			Consumed: r.Consumed, Expired: r.Expired, Canceled: r.Canceled, HitRate: r.HitRate, HeldIdleS: r.HeldIdleS})
	}
	return c.JSON(http.StatusOK, out)
}
