package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// UsageData handles GET /usage/data (session) and GET /api/v1/usage
// (token): every usage series for ?range=day|week|month, downsampled in SQL
// to a fixed number of points, and the fair-share standing now.
func (h *Handlers) UsageData(c echo.Context) error {
	rng, node, err := usageQuery(c)
	if err != nil {
		return err
	}
	u, err := h.loadUsage(c.Request().Context(), userOf(c), rng, node)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, u)
}
