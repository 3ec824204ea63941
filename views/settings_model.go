package views

import "github.com/a-h/templ"

// Settings is the settings index: links to the settings sub-pages (each
// feature adds its own section) and the person's signed-in sessions.
type Settings struct {
	Sections []SettingsSection
	Sessions []SessionRow
	Notice   string
	Error    string
}

// SettingsSection is one settings sub-page linked from the index.
type SettingsSection struct {
	Title, Description string
	Href               templ.SafeURL
	// Key names the section in tests (data-testid="settings-KEY").
	Key string
}

// SessionRow is one live browser session.
type SessionRow struct {
	ID                                      int64
	Device, Via, Address, LastSeen, Created string
	// Current is the session of this very browser.
	Current bool
}
