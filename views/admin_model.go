package views

import "github.com/a-h/templ"

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

// AdminPolicies is the scheduling policy page: the policy as JSON, the
// presets, and the preview of the queue under the proposed policy.
type AdminPolicies struct {
	JSON    string
	Presets []string
	Error   string
	Saved   bool
	Preview *PolicyPreview
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
}

// AdminNode is one row of the nodes page.
type AdminNode struct {
	Name, Status, LastSeen string
	Drained                bool
	GPUs                   int
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
