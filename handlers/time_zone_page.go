package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// TimeZonePage handles GET /settings/time-zone: the form to choose the zone
// the dashboard shows times in.
func (h *Handlers) TimeZonePage(c echo.Context) error {
	return h.renderTimeZone(c, http.StatusOK, views.TimeZoneForm{Zone: userOf(c).TimeZone})
}

// TimeZoneSave handles POST /settings/time-zone (time_zone: an IANA name,
// "" for UTC). With auto=1 (the page script, on first sign-in) it only fills
// an unset zone and answers 204; a plain form gets the page back with the
// outcome, a bad name a 422 naming the field.
func (h *Handlers) TimeZoneSave(c echo.Context) error {
	u := userOf(c)
	zone := strings.TrimSpace(c.FormValue("time_zone"))
	auto := c.FormValue("auto") == "1"
	if _, err := localtime.Load(zone); err != nil {
		if auto {
			return invalid("time_zone", "%q is not a known time zone", zone)
		}
		return h.renderTimeZone(c, http.StatusUnprocessableEntity, views.TimeZoneForm{Zone: zone,
			Error: "Time zone: \"" + zone + "\" is not a known IANA zone name such as Europe/Berlin."})
	}
	changed, err := models.SetUserTimeZone(c.Request().Context(), h.DB.Bun, u.ID, zone, auto)
	if err != nil {
		return err
	}
	if auto {
		if changed {
			h.log(c).Info("time zone taken from the browser", "user", u.Email, "zone", zone)
		}
		return c.NoContent(http.StatusNoContent)
	}
	// This response already shows times in the new zone (a copy: the
	// signed-in user may be shared by the session cache).
	if p := PrincipalOf(c); p != nil && p.User != nil {
		cp, uc := *p, *p.User
		uc.TimeZone = zone
		cp.User = &uc
		SetPrincipal(c, &cp)
	}
	name := zone
	if name == "" {
		name = "UTC"
	}
	return h.renderTimeZone(c, http.StatusOK, views.TimeZoneForm{Zone: zone, Done: "Saved: times are shown in " + name + "."})
}

func (h *Handlers) renderTimeZone(c echo.Context, status int, f views.TimeZoneForm) error {
	f.Choices = views.CommonZones
	f.Now = localtime.Stamp(h.Now(), viewerZone(c))
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, status, views.TimeZonePage(h.Page(c, "Time zone", "settings"), f))
}
