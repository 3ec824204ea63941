package handlers

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// viewerZone is the time zone the request's pages show and read times in:
// the signed-in user's setting (Settings → Time zone), else UTC.
func viewerZone(c echo.Context) *time.Location {
	if u := userOf(c); u != nil {
		return localtime.OrUTC(u.TimeZone)
	}
	return time.UTC
}
