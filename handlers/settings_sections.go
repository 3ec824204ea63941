package handlers

import "github.com/gpuscheduler/gpuscheduler/views"

// SettingsSections are the settings sub-pages linked from the settings
// index (/settings), in order. Each feature adds its own entry here.
var SettingsSections = []views.SettingsSection{
	{Key: "tokens", Title: "API tokens", Href: "/settings/tokens",
		Description: "Personal tokens for the gpusched CLI and scripts."},
	{Key: "time-zone", Title: "Time zone", Href: "/settings/time-zone",
		Description: "The zone every time is shown in, on every page and in exports."},
	{Key: "feeds", Title: "Calendar feeds", Href: "/settings/feeds",
		Description: "Secret iCalendar links that put your bookings and the team's into your calendar app."},
	{Key: "notifications", Title: "Notifications", Href: "/settings/notifications",
		Description: "Which events reach you, by which channel (Slack, email, webhooks), and quiet hours."},
}
