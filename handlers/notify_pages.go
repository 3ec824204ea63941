package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// BellFragment handles GET /fragments/bell: the nav bell's unread count.
func (h *Handlers) BellFragment(c echo.Context) error {
	n, err := models.UnreadCount(c.Request().Context(), h.DB.Bun, userOf(c).ID)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.BellFragment(views.Bell{Unread: n}))
}

// NotificationsPage handles GET /notifications: the in-app list.
func (h *Handlers) NotificationsPage(c echo.Context) error {
	ctx, u := c.Request().Context(), userOf(c)
	list, err := models.InAppNotifications(ctx, h.DB.Bun, u.ID, 100)
	if err != nil {
		return err
	}
	var m views.NotificationsList
	loc := viewerZone(c)
	for _, n := range list {
		p := n.Payload.In(loc)
		m.Items = append(m.Items, views.NotificationItem{ID: n.ID, Event: n.Event, Title: p.Title, Reason: p.Reason,
			Path: notificationPage(&n), When: localtime.Stamp(n.CreatedAt, loc), Unread: n.ReadAt == nil})
		if n.ReadAt == nil {
			m.Unread++
		}
	}
	return render(c, http.StatusOK, views.NotificationsPage(h.Page(c, "Notifications", "notifications"), m))
}

// NotificationsReadPage handles POST /notifications/read: all read, back to the list.
func (h *Handlers) NotificationsReadPage(c echo.Context) error {
	if _, err := models.MarkRead(c.Request().Context(), h.DB.Bun, userOf(c).ID, 0, h.Now()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/notifications")
}

// AdminNotifications handles GET /admin/notifications: the team's
// channels, with the form to add one, and dead deliveries.
func (h *Handlers) AdminNotifications(c echo.Context) error {
	return h.renderAdminNotifications(c, http.StatusOK, views.AdminNotifications{})
}

// renderAdminNotifications fills m with the team channels and the dead
// deliveries and renders the page.
func (h *Handlers) renderAdminNotifications(c echo.Context, status int, m views.AdminNotifications) error {
	ctx := c.Request().Context()
	dead, err := models.Deliveries(ctx, h.DB.Bun, 0, models.DeliveryDead, 200)
	if err != nil {
		return err
	}
	if m.Dead, err = h.deliveryRows(c, dead); err != nil {
		return err
	}
	team, err := models.TeamChannels(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	for i := range team {
		j := channelJSON(h.opened(&team[i].NotificationChannel))
		m.Team = append(m.Team, views.TeamChannelRow{ChannelRow: views.ChannelRow{ID: j.ID, Type: j.Type, Target: j.URL + j.Address,
			RatePerMinute: j.RatePerMinute}, FromEnv: team[i].FromEnv, InUse: team[i].InUse})
	}
	m.CSRF = csrfToken(c)
	return render(c, status, views.AdminNotificationsPage(h.Page(c, "Notifications", "admin"), m))
}

func (h *Handlers) deliveryRows(c echo.Context, list []models.Notification) ([]views.DeliveryRow, error) {
	emails := map[int64]string{}
	rows := make([]views.DeliveryRow, 0, len(list))
	for _, n := range list {
		r := views.DeliveryRow{ID: n.ID, Event: n.Event, Channel: n.ChannelType, State: n.State, Attempts: n.Attempts,
			LastError: n.LastError, When: localtime.Stamp(n.CreatedAt, viewerZone(c)), User: "team"}
		if n.UserID != nil {
			if _, ok := emails[*n.UserID]; !ok {
				u, err := models.GetUser(c.Request().Context(), h.DB.Bun, *n.UserID)
				if err != nil {
					return nil, err
				}
				emails[*n.UserID] = u.Email
			}
			r.User = emails[*n.UserID]
		}
		rows = append(rows, r)
	}
	return rows, nil
}
