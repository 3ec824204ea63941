package handlers

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// PrefsJSON is the body of GET and PUT /api/v1/me/notifications: for each
// event the channel kinds it goes by, and quiet hours ("HH:MM") on the
// clock of quiet_time_zone (an IANA name; UTC when a PUT leaves it out).
type PrefsJSON struct {
	Events        map[string][]string `json:"events"`
	QuietStart    string              `json:"quiet_start,omitempty"`
	QuietEnd      string              `json:"quiet_end,omitempty"`
	QuietTimeZone string              `json:"quiet_time_zone,omitempty"`
}

// NotifyPrefs handles GET /api/v1/me/notifications.
func (h *Handlers) NotifyPrefs(c echo.Context) error {
	p, err := models.GetPrefs(c.Request().Context(), h.DB.Bun, userOf(c).ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, prefsJSON(p))
}

// NotifyPrefsPut handles PUT /api/v1/me/notifications: events named replace
// their choice; events left out keep theirs.
func (h *Handlers) NotifyPrefsPut(c echo.Context) error {
	var b PrefsJSON
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	ctx := c.Request().Context()
	p, err := models.GetPrefs(ctx, h.DB.Bun, userOf(c).ID)
	if err != nil {
		return err
	}
	if err := applyPrefs(p, &b, time.UTC); err != nil {
		return err
	}
	if err := models.SavePrefs(ctx, h.DB.Bun, p, h.Now()); err != nil {
		if errors.Is(err, models.ErrBadPrefs) {
			return invalid("events", "%v", errors.Unwrap(err))
		}
		return err
	}
	return c.JSON(http.StatusOK, prefsJSON(p))
}

// applyPrefs sets b's choices on p; quiet hours are read on the clock of
// b's zone, else of def.
func applyPrefs(p *models.NotificationPrefs, b *PrefsJSON, def *time.Location) error {
	for e, kinds := range b.Events {
		if !models.IsEvent(e) {
			return invalid("events", "unknown event %q", e)
		}
		if kinds == nil {
			kinds = []string{}
		}
		p.Events[e] = kinds
	}
	qs, err := parseClock(b.QuietStart)
	if err != nil {
		return invalid("quiet_start", "%v", err)
	}
	qe, err := parseClock(b.QuietEnd)
	if err != nil {
		return invalid("quiet_end", "%v", err)
	}
	if (qs == nil) != (qe == nil) {
		return invalid("quiet_end", "quiet hours need both quiet_start and quiet_end")
	}
	loc, err := zoneParam("quiet_time_zone", b.QuietTimeZone, def)
	if err != nil {
		return err
	}
	p.QuietStart, p.QuietEnd, p.QuietZone = qs, qe, loc.String()
	return nil
}

func prefsJSON(p *models.NotificationPrefs) PrefsJSON {
	out := PrefsJSON{Events: p.Events, QuietStart: clockOf(p.QuietStart), QuietEnd: clockOf(p.QuietEnd)}
	if p.QuietStart != nil {
		out.QuietTimeZone = p.QuietLocation().String()
	}
	return out
}
