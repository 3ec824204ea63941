package views

import (
	"strings"

	"github.com/a-h/templ"
)

// adminTab is one admin section.
type adminTab struct {
	Key, Label string
	Href       templ.SafeURL
}

// adminTabs are the admin sections in order; the River UI is its own app.
var adminTabs = []adminTab{
	{"users", "Users", "/admin/users"},
	{"teams", "Teams", "/admin/teams"},
	{"policies", "Policies", "/admin/policies"},
	{"nodes", "Nodes", "/admin/nodes"},
	{"audit", "Audit log", "/admin/audit"},
	{"import", "Import bookings", "/admin/import"},
	{"river", "Background jobs", "/admin/river"},
}

// AdminUsers is the users admin page.
type AdminUsers struct {
	Users []AdminUser
	Teams []Option
	Error string
}

// AdminUser is one row of the users page.
type AdminUser struct {
	ID                int64
	Email, Name, Role string
	TeamID            string // "" for none
	Disabled          bool
	Self              bool
}

// Option is one choice of a select.
type Option struct{ Value, Label string }

// AdminTeams is the teams admin page.
type AdminTeams struct {
	Teams []AdminTeam
	Error string
}

// AdminTeam is one row of the teams page.
type AdminTeam struct {
	ID      int64
	Name    string
	Weight  string
	GPUCap  string // "" for none
	Members int
}

// AdminPolicies is the scheduling policy page: the presets explained, the
// policy as a form (each key with its unit, default and any error beside
// it), the JSON editor for experts, and the preview of the queue under the
// proposed policy.
type AdminPolicies struct {
	Presets  []PresetChoice
	Sections []PolicySection
	JSON     string
	// JSONOpen unfolds the JSON editor (it was used); JSONError is its error.
	JSONOpen  bool
	JSONError string
	Error     string // the form's error that is about no one field
	Saved     bool
	Preview   *PolicyPreview
}

// PresetChoice is one preset of the form: what it does, when to choose it.
type PresetChoice struct {
	Name, Summary, UseWhen string
	Checked                bool
}

// PolicySection is a fieldset of the policy form; a closed one is folded
// unless one of its fields has an error.
type PolicySection struct {
	Title, Help string
	Open        bool
	Fields      []PolicyField
}

// PolicyField is one key of the policy: Key is its JSON path and the form
// field's name; Kind is "bool", "select", "float", "int" or text kinds.
type PolicyField struct {
	Key, Label, Kind, Value, Unit, Default, Help, Error string
	Options                                             []Option
}

// ID is the field's element id.
func (f PolicyField) ID() string { return "p-" + strings.ReplaceAll(f.Key, ".", "-") }

// HasError reports whether a field of the section has an error.
func (s PolicySection) HasError() bool {
	for _, f := range s.Fields {
		if f.Error != "" {
			return true
		}
	}
	return false
}

// PolicyPreview is what one scheduling pass would do now under a policy.
type PolicyPreview struct {
	Starts  []PreviewRow
	Waiting []PreviewRow
}

// PreviewRow is one job in the preview.
type PreviewRow struct {
	Position int
	JobID    int64
	Name     string
	GPUs     int
	Note     string // reason or "backfilled"
	ETA      string
}

// AdminNodes is the nodes admin page.
type AdminNodes struct {
	Nodes []AdminNode
	Error string // why the last MIG layout was refused
}

// AdminNode is one row of the nodes page.
type AdminNode struct {
	Name, Status, LastSeen string
	Drained                bool
	GPUs                   int
	// MIGLayout is the layout declared ("" none), MIGReport what the agent
	// last said it did of it and what waits, MIGReportAge how long ago.
	MIGLayout, MIGReport, MIGReportAge string
}

// AdminAudit is the audit log page with its filter and pager.
type AdminAudit struct {
	Actor, Action, From, To string
	Entries                 []AuditRow
	Next                    templ.SafeURL // "" on the last page
	Error                   string
}

// AuditRow is one audit entry.
type AuditRow struct {
	At, Actor, Action, Target, Details, Remote string
}
