package handlers

import (
	"time"

	"github.com/labstack/echo/v4"
)

// viewerZone is the signed-in viewer's time zone. This stub answers UTC
// until the time-zone setting lands (it defines the real one).
func viewerZone(c echo.Context) *time.Location { return time.UTC }
