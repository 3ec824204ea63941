package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// SettingsPage handles GET /settings: the settings index (a link per
// section, SettingsSections) and the person's live sessions.
func (h *Handlers) SettingsPage(c echo.Context) error {
	return h.renderSettings(c, http.StatusOK, views.Settings{Notice: noticeOf(c.QueryParam("notice"))})
}

// renderSettings shows the settings index with s's message.
func (h *Handlers) renderSettings(c echo.Context, status int, s views.Settings) error {
	p := PrincipalOf(c)
	list, err := models.ListSessions(c.Request().Context(), h.DB.Bun, p.User.ID, h.Now())
	if err != nil {
		return err
	}
	s.Sections = SettingsSections
	loc := viewerZone(c)
	for _, row := range list {
		s.Sessions = append(s.Sessions, views.SessionRow{ID: row.ID, Device: deviceOf(row.UserAgent), Via: row.Via, Address: row.IP,
			LastSeen: localtime.Stamp(row.LastSeenAt, loc), Created: localtime.Stamp(row.CreatedAt, loc),
			Current: row.ID == p.SessionID})
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, status, views.SettingsPage(h.Page(c, "Settings", "settings"), s))
}

// noticeOf turns a notice key from a redirect into its sentence.
func noticeOf(key string) string {
	switch key {
	case "session-ended":
		return "That session is signed out."
	}
	return ""
}
