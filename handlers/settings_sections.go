package handlers

import "github.com/gpuscheduler/gpuscheduler/views"

// SettingsSections are the settings sub-pages linked from the settings
// index (/settings), in order. Each feature adds its own entry here.
var SettingsSections = []views.SettingsSection{
	{Key: "tokens", Title: "API tokens", Href: "/settings/tokens",
		Description: "Personal tokens for the gpusched CLI and scripts."},
	// More sections (notifications, feeds, time zone) are added here by their features.
}
