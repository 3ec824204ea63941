package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// recentHolds is how far back GET /holds shows ended holds.
const recentHolds = 24 * time.Hour

// HoldsList handles GET /api/v1/holds: the caller's live holds and those of
// the last day, newest first; ?all=true shows everyone's (holds are visible
// to everyone, like bookings).
func (h *Handlers) HoldsList(c echo.Context) error {
	u := userOf(c)
	ctx := c.Request().Context()
	owner := u.ID
	switch c.QueryParam("all") {
	case "true", "1":
		owner = 0
	case "", "false", "0":
	default:
		return invalid("all", "must be true or false")
	}
	now := h.Now()
	hs, err := models.ListHolds(ctx, h.DB.Bun, owner, now.Add(-recentHolds), now)
	if err != nil {
		return err
	}
	emails := map[int64]string{u.ID: u.Email}
	out := api.Holds{Holds: make([]api.Hold, 0, len(hs))}
	for i := range hs {
		email, ok := emails[hs[i].UserID]
		if !ok {
			o, err := models.GetUser(ctx, h.DB.Bun, hs[i].UserID)
			if err != nil {
				return err
			}
			email, emails[o.ID] = o.Email, o.Email
		}
		out.Holds = append(out.Holds, holdJSON(&hs[i], email, now))
	}
	return c.JSON(http.StatusOK, out)
}
