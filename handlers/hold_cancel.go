package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// HoldCancel handles DELETE /api/v1/holds/{id}: the owner (or an admin)
// cancels a live hold; its GPUs go back to everyone at the next pass.
func (h *Handlers) HoldCancel(c echo.Context) error {
	u := userOf(c)
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return invalid("id", "must be a hold id, got %q", c.Param("id"))
	}
	var hold *models.Hold
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		hold, err = models.CancelHold(ctx, tx, id, u.ID, u.IsAdmin(), h.Now())
		return err
	})
	if err != nil {
		return fromModel(err, "hold")
	}
	owner := u
	if hold.UserID != u.ID {
		if owner, err = models.GetUser(c.Request().Context(), h.DB.Bun, hold.UserID); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusOK, holdJSON(hold, owner.Email, h.Now()))
}
