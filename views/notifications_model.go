package views

import (
	"strconv"
	"time"
)

// The notifications pages' models.

func init() {
	adminTabs = append(adminTabs, adminTab{"notifications", "Notifications", "/admin/notifications"})
}

// Bell is the nav's notification bell: the unread count.
type Bell struct{ Unread int }

// BellLabel is the bell's accessible name.
func (b Bell) BellLabel() string {
	switch b.Unread {
	case 0:
		return "Notifications"
	case 1:
		return "Notifications: 1 unread"
	}
	return "Notifications: " + strconv.Itoa(b.Unread) + " unread"
}

// NotificationItem is one in-app notification as the list shows it.
type NotificationItem struct {
	ID     int64
	Event  string
	Title  string
	Reason string
	Path   string
	When   string
	Unread bool
}

// NotificationsList is the /notifications page.
type NotificationsList struct {
	Unread int
	Items  []NotificationItem
}

// PrefRow is one event's row of the preferences grid.
type PrefRow struct {
	Event, Help string
	Kinds       map[string]bool
}

// ChannelRow is one of the user's channels.
type ChannelRow struct {
	ID            int64
	Type, Target  string
	RatePerMinute int
}

// DeliveryRow is one delivery over a channel, with its state and reason.
type DeliveryRow struct {
	ID        int64
	User      string
	Event     string
	Channel   string
	State     string
	Attempts  int
	LastError string
	When      string
}

// NotifySettings is the /settings/notifications page.
type NotifySettings struct {
	Kinds      []string
	Rows       []PrefRow
	QuietStart string
	QuietEnd   string
	// Zone names the viewer's zone, which the quiet hours are read in:
	// "Europe/Berlin (CET)".
	Zone       string
	Channels   []ChannelRow
	Deliveries []DeliveryRow
	NewSecret  string // a just-created webhook's secret, shown once
	Error      string
	Saved      string
}

// AdminNotifications is the admin page of the team's channels (with the
// form to add one) and dead deliveries.
type AdminNotifications struct {
	CSRF string
	Dead []DeliveryRow
	// Team are the channels without an owner: the ones admins set here and
	// the one from GPUSCHED_SLACK_WEBHOOK_URL.
	Team      []TeamChannelRow
	NewSecret string // a just-added webhook's secret, shown once
	Error     string
	Saved     string
}

// TeamChannelRow is one team channel: FromEnv when the server's
// environment set it; InUse when team events go to it now.
type TeamChannelRow struct {
	ChannelRow
	FromEnv, InUse bool
}

// idleCountdown is the time left until at, "now" once past.
func idleCountdown(at, now time.Time) string {
	d := at.Sub(now).Round(time.Second)
	if d <= 0 {
		return "moments"
	}
	return d.String()
}
