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

// NotifySettingsPage handles GET /settings/notifications.
func (h *Handlers) NotifySettingsPage(c echo.Context) error {
	return h.renderNotifySettings(c, http.StatusOK, views.NotifySettings{})
}

func (h *Handlers) renderNotifySettings(c echo.Context, status int, s views.NotifySettings) error {
	ctx, u := c.Request().Context(), userOf(c)
	p, err := models.GetPrefs(ctx, h.DB.Bun, u.ID)
	if err != nil {
		return err
	}
	s.Kinds = models.ChannelKinds
	// Quiet hours on the viewer's clock, whatever zone they were set in.
	loc, now := viewerZone(c), h.Now()
	s.QuietStart, s.QuietEnd = clockIn(p.QuietStart, p.QuietLocation(), loc, now), clockIn(p.QuietEnd, p.QuietLocation(), loc, now)
	s.Zone = zoneName(loc, now)
	for _, e := range models.Events {
		row := views.PrefRow{Event: e, Kinds: map[string]bool{}}
		for _, k := range p.Events[e] {
			row.Kinds[k] = true
		}
		s.Rows = append(s.Rows, row)
	}
	chans, err := models.UserChannels(ctx, h.DB.Bun, u.ID)
	if err != nil {
		return err
	}
	for i := range chans {
		j := channelJSON(h.opened(&chans[i]))
		s.Channels = append(s.Channels, views.ChannelRow{ID: j.ID, Type: j.Type, Target: j.URL + j.Address, RatePerMinute: j.RatePerMinute})
	}
	list, err := models.Deliveries(ctx, h.DB.Bun, u.ID, "", 20)
	if err != nil {
		return err
	}
	if s.Deliveries, err = h.deliveryRows(c, list); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, status, views.NotifySettingsPage(h.Page(c, "Notification settings", "notifications"), s))
}

// NotifySettingsSave handles POST /settings/notifications: the whole grid
// (an unchecked box is a "no") and the quiet hours.
func (h *Handlers) NotifySettingsSave(c echo.Context) error {
	ctx, u := c.Request().Context(), userOf(c)
	p, err := models.GetPrefs(ctx, h.DB.Bun, u.ID)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	b := PrefsJSON{Events: map[string][]string{}, QuietStart: c.FormValue("quiet_start"), QuietEnd: c.FormValue("quiet_end")}
	for _, e := range models.Events {
		b.Events[e] = form["pref."+e]
	}
	if err := applyPrefs(p, &b, viewerZone(c)); err != nil {
		return h.renderNotifySettings(c, http.StatusBadRequest, views.NotifySettings{Error: err.Error()})
	}
	if err := models.SavePrefs(ctx, h.DB.Bun, p, h.Now()); err != nil {
		if errors.Is(err, models.ErrBadPrefs) {
			return h.renderNotifySettings(c, http.StatusBadRequest, views.NotifySettings{Error: err.Error()})
		}
		return err
	}
	return h.renderNotifySettings(c, http.StatusOK, views.NotifySettings{Saved: "Preferences saved."})
}

// NotifyChannelCreatePage handles POST /settings/notifications/channels.
func (h *Handlers) NotifyChannelCreatePage(c echo.Context) error {
	b := ChannelRequest{Type: c.FormValue("type")}
	target := strings.TrimSpace(c.FormValue("target"))
	if b.Type == models.KindEmail {
		b.Address = target
	} else {
		b.URL = target
	}
	ch, err := h.channelFrom(&b, userOf(c).ID)
	if err != nil {
		return h.renderNotifySettings(c, http.StatusBadRequest, views.NotifySettings{Error: err.Error()})
	}
	ch.CreatedAt = h.Now()
	secret := ch.Secret
	if err := models.CreateChannel(c.Request().Context(), h.DB.Bun, h.sealed(ch)); err != nil {
		return err
	}
	s := views.NotifySettings{Saved: "Channel added."}
	if ch.Type == models.KindWebhook {
		s.NewSecret = secret
	}
	return h.renderNotifySettings(c, http.StatusOK, s)
}

// NotifyChannelTestPage handles POST /settings/notifications/channels/{id}/test.
func (h *Handlers) NotifyChannelTestPage(c echo.Context) error {
	id, _ := strconv.ParseInt(c.Param("id"), 10, 64)
	u := userOf(c)
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		ch, err := models.GetChannel(ctx, tx, id)
		if err != nil {
			return err
		}
		if ch.UserID == nil || *ch.UserID != u.ID {
			return models.ErrNotFound
		}
		_, err = models.SendTest(ctx, tx, ch, h.Now())
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return h.renderNotifySettings(c, http.StatusNotFound, views.NotifySettings{Error: "No such channel."})
	} else if err != nil {
		return err
	}
	return h.renderNotifySettings(c, http.StatusOK, views.NotifySettings{Saved: "Test message queued: see Recent deliveries."})
}

// NotifyChannelDeletePage handles POST /settings/notifications/channels/{id}/delete.
func (h *Handlers) NotifyChannelDeletePage(c echo.Context) error {
	id, _ := strconv.ParseInt(c.Param("id"), 10, 64)
	if err := models.DeleteChannel(c.Request().Context(), h.DB.Bun, userOf(c).ID, id); err != nil {
		if errors.Is(err, models.ErrNotFound) {
			return h.renderNotifySettings(c, http.StatusNotFound, views.NotifySettings{Error: "No such channel."})
		}
		return err
	}
	return h.renderNotifySettings(c, http.StatusOK, views.NotifySettings{Saved: "Channel removed."})
}
