package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/pages"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// NotificationsJSON is the body of GET /api/v1/notifications.
type NotificationsJSON struct {
	Unread        int                   `json:"unread"`
	Notifications []models.Notification `json:"notifications"`
}

// NotifyList handles GET /api/v1/notifications: the caller's in-app
// notifications, newest first (?limit, default 50).
func (h *Handlers) NotifyList(c echo.Context) error {
	limit := 50
	if s := c.QueryParam("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 500 {
			return invalid("limit", "must be 1 to 500, got %q", s)
		}
		limit = n
	}
	ctx, u := c.Request().Context(), userOf(c)
	list, err := models.InAppNotifications(ctx, h.DB.Bun, u.ID, limit)
	if err != nil {
		return err
	}
	unread, err := models.UnreadCount(ctx, h.DB.Bun, u.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, NotificationsJSON{Unread: unread, Notifications: withPages(list, userZone(u))})
}

// NotifyDeliveries handles GET /api/v1/notifications/deliveries: the
// caller's deliveries over channels with their state and, for failed or
// dead ones, the reason (?state=dead filters).
func (h *Handlers) NotifyDeliveries(c echo.Context) error {
	list, err := models.Deliveries(c.Request().Context(), h.DB.Bun, userOf(c).ID, c.QueryParam("state"), 100)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"deliveries": withPages(list, viewerZone(c))})
}

// notificationPage returns the path of the page n leads to.
func notificationPage(n *models.Notification) string {
	return pages.Notification(pages.Subject{Event: n.Event, JobID: n.Payload.JobID(), BookingID: n.Payload.BookingID()})
}

// withPages sets each notification's payload path to its page, as the
// delivered messages carry it, and words its reason for the reader in loc.
func withPages(list []models.Notification, loc *time.Location) []models.Notification {
	for i := range list {
		list[i].Payload = list[i].Payload.In(loc)
		list[i].Payload.Path = notificationPage(&list[i])
	}
	return list
}

// NotifyRead handles POST /api/v1/notifications/read: {"id": n} marks one
// read, {} marks all.
func (h *Handlers) NotifyRead(c echo.Context) error {
	var b struct {
		ID int64 `json:"id"`
	}
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	n, err := models.MarkRead(c.Request().Context(), h.DB.Bun, userOf(c).ID, b.ID, h.Now())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"marked": n})
}
