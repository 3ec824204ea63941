package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// AdminTeamChannelCreate handles POST /admin/notifications/channels: an
// admin adds a Slack or webhook channel for the team. Its URL goes through
// the same target checks as a member's (no loopback or private address
// unless the server allows it); the addition is audited.
func (h *Handlers) AdminTeamChannelCreate(c echo.Context) error {
	b := ChannelRequest{Type: c.FormValue("type"), URL: strings.TrimSpace(c.FormValue("url"))}
	if b.Type != models.KindSlack && b.Type != models.KindWebhook {
		return h.renderAdminNotifications(c, http.StatusBadRequest, views.AdminNotifications{Error: "Choose Slack or webhook."})
	}
	u := userOf(c)
	ch, err := h.channelFrom(&b, u.ID)
	if err != nil {
		var apiErr *APIError
		if !errors.As(err, &apiErr) {
			return err
		}
		return h.renderAdminNotifications(c, http.StatusBadRequest, views.AdminNotifications{Error: "The URL " + strings.TrimPrefix(apiErr.Message, "url: ")})
	}
	ch.UserID, ch.CreatedAt = nil, h.Now()
	secret := ch.Secret
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		if err := models.CreateChannel(ctx, tx, h.sealed(ch)); err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "notify.team_channel.create", TargetType: "notification_channel",
			TargetID: strconv.FormatInt(ch.ID, 10), Details: map[string]any{"type": ch.Type}, RemoteAddr: c.RealIP()})
	})
	if err != nil {
		return err
	}
	m := views.AdminNotifications{Saved: "Team channel added: team events go to it from now on."}
	if ch.Type == models.KindWebhook {
		m.NewSecret = secret
	}
	return h.renderAdminNotifications(c, http.StatusOK, m)
}

// AdminTeamChannelTest handles POST /admin/notifications/channels/{id}/test:
// one test message to a team channel.
func (h *Handlers) AdminTeamChannelTest(c echo.Context) error {
	id, _ := strconv.ParseInt(c.Param("id"), 10, 64)
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		ch, err := models.GetChannel(ctx, tx, id)
		if err != nil {
			return err
		}
		if ch.UserID != nil {
			return models.ErrNotFound
		}
		_, err = models.SendTest(ctx, tx, ch, h.Now())
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return h.renderAdminNotifications(c, http.StatusNotFound, views.AdminNotifications{Error: "No such team channel."})
	} else if err != nil {
		return err
	}
	return h.renderAdminNotifications(c, http.StatusOK, views.AdminNotifications{Saved: "Test message queued; a failed one shows under Dead deliveries."})
}

// AdminTeamChannelDelete handles POST /admin/notifications/channels/{id}/delete:
// an admin removes a team channel set here (audited).
func (h *Handlers) AdminTeamChannelDelete(c echo.Context) error {
	id, _ := strconv.ParseInt(c.Param("id"), 10, 64)
	u := userOf(c)
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		if err := models.DeleteTeamChannel(ctx, tx, id); err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "notify.team_channel.delete", TargetType: "notification_channel",
			TargetID: strconv.FormatInt(id, 10), RemoteAddr: c.RealIP()})
	})
	switch {
	case errors.Is(err, models.ErrNotFound):
		return h.renderAdminNotifications(c, http.StatusNotFound, views.AdminNotifications{Error: "No such team channel."})
	case errors.Is(err, models.ErrBadTransition):
		return h.renderAdminNotifications(c, http.StatusConflict, views.AdminNotifications{
			Error: "That channel comes from the server's environment: unset GPUSCHED_SLACK_WEBHOOK_URL to remove it."})
	case err != nil:
		return err
	}
	return h.renderAdminNotifications(c, http.StatusOK, views.AdminNotifications{Saved: "Team channel removed."})
}
