package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// NotifyChannels handles GET /api/v1/notifications/channels: the caller's own channels.
func (h *Handlers) NotifyChannels(c echo.Context) error {
	chans, err := models.UserChannels(c.Request().Context(), h.DB.Bun, userOf(c).ID)
	if err != nil {
		return err
	}
	out := make([]ChannelJSON, len(chans))
	for i := range chans {
		out[i] = channelJSON(&chans[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"channels": out})
}

// NotifyChannelCreate handles POST /api/v1/notifications/channels:
// {"type": "webhook"|"slack"|"email", "url"|"address", "secret"?}. A webhook
// without a secret gets one; the answer shows it once.
func (h *Handlers) NotifyChannelCreate(c echo.Context) error {
	var b ChannelRequest
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	ch, err := h.channelFrom(&b, userOf(c).ID)
	if err != nil {
		return err
	}
	ch.CreatedAt = h.Now()
	if err := models.CreateChannel(c.Request().Context(), h.DB.Bun, ch); err != nil {
		return err
	}
	out := channelJSON(ch)
	out.Secret = ch.Secret
	return c.JSON(http.StatusCreated, out)
}

// NotifyChannelDelete handles DELETE /api/v1/notifications/channels/{id}.
func (h *Handlers) NotifyChannelDelete(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return invalid("id", "must be a channel id, got %q", c.Param("id"))
	}
	if err := models.DeleteChannel(c.Request().Context(), h.DB.Bun, userOf(c).ID, id); err != nil {
		return fromModel(err, "notification channel")
	}
	return c.NoContent(http.StatusNoContent)
}

// NotifyChannelTest handles POST /api/v1/notifications/channels/{id}/test:
// one test message is queued; its delivery shows in GET /api/v1/notifications/deliveries.
func (h *Handlers) NotifyChannelTest(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return invalid("id", "must be a channel id, got %q", c.Param("id"))
	}
	u := userOf(c)
	var delivery int64
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		ch, err := models.GetChannel(ctx, tx, id)
		if err != nil {
			return err
		}
		if ch.UserID == nil || *ch.UserID != u.ID {
			return models.ErrNotFound
		}
		delivery, err = models.SendTest(ctx, tx, ch, h.Now())
		return err
	})
	if err != nil {
		return fromModel(err, "notification channel")
	}
	return c.JSON(http.StatusAccepted, map[string]any{"delivery_id": delivery})
}
