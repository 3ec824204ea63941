// Package pages names the dashboard's pages that notifications lead to: the
// link of an in-app notification, and the "path" and "url" of every message
// sent (webhook body, Slack button, mail link). The paths are the route
// table's (web/routes.go); the package knows nothing of the database, so the
// domain records what an event is about and the edges that show or send it
// (handlers, the delivery worker) ask here for its page.
package pages

import "strconv"

// Paths of the pages notifications lead to.
const (
	Admin                = "/admin"
	AdminNodes           = "/admin/nodes"
	Bookings             = "/bookings"
	Notifications        = "/notifications"
	NotificationSettings = "/settings/notifications"
)

// Job returns the path of job id's page.
func Job(id int64) string { return "/jobs/" + strconv.FormatInt(id, 10) }

// Session is the proxy path of interactive session id.
func Session(id int64) string { return "/s/" + strconv.FormatInt(id, 10) + "/" }

// Sessions is the page of the user's interactive sessions.
const Sessions = "/sessions"

// Booking returns the path of booking id's page.
func Booking(id int64) string { return "/bookings/" + strconv.FormatInt(id, 10) }

// Subject is what a notification is about, as its row records it: the
// event's name (the catalogue's, models.Events) and the ids of the job or
// booking it concerns (0: none).
type Subject struct {
	Event     string
	JobID     int64
	BookingID int64
}

// Notification returns the path of the page a notification about s leads
// to: the job's page for a job's events; the booking's own page when an
// admin changed it, the calendar for the other events of bookings and
// holds; the nodes' page for a node's; the admin page for the invariant
// sweep's repairs; the notification settings for a channel's test message.
// A session's ready and idle notices open the session itself, its stop the
// Sessions page. Anything else leads to the list of notifications.
func Notification(s Subject) string {
	switch {
	case s.JobID != 0 && (s.Event == "session.ready" || s.Event == "session.idle"):
		return Session(s.JobID) // open it (and so keep it busy)
	case s.JobID != 0 && s.Event == "session.stopped":
		return Sessions
	case s.JobID != 0:
		return Job(s.JobID)
	case s.BookingID != 0 && s.Event == "booking.clashed":
		return Booking(s.BookingID)
	case s.BookingID != 0:
		return Bookings
	}
	switch s.Event {
	case "node.down", "node.up":
		return AdminNodes
	case "invariant.repaired":
		return Admin
	case "notification.test":
		return NotificationSettings
	}
	return Notifications
}
