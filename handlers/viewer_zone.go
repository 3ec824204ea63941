package handlers

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// viewerZone is the time zone the request's pages show and read times in:
// the signed-in user's setting (Settings → Time zone), else UTC.
func viewerZone(c echo.Context) *time.Location { return userZone(userOf(c)) }

// userZone is the zone u reads times in (Settings → Time zone): the API's
// sentences for u (error messages) speak it as the pages do. Nil is UTC.
func userZone(u *models.User) *time.Location {
	if u == nil {
		return time.UTC
	}
	return localtime.OrUTC(u.TimeZone)
}
