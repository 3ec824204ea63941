package models

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/uptrace/bun"
)

// Node statuses: "new" until the agent first registers, then "up" while it
// heartbeats and "down" when it stops.
const (
	NodeNew  = "new"
	NodeUp   = "up"
	NodeDown = "down"
)

// Node is a GPU host running `gpusched node`.
type Node struct {
	bun.BaseModel `bun:"table:nodes"`

	ID              int64             `bun:"id,pk,autoincrement" json:"id"`
	Name            string            `bun:"name,notnull" json:"name"`
	Hostname        string            `bun:"hostname,notnull" json:"hostname"`
	Status          string            `bun:"status,notnull" json:"status"`
	Drained         bool              `bun:"drained,notnull" json:"drained"`
	AgentVersion    string            `bun:"agent_version,notnull" json:"agent_version"`
	Labels          map[string]string `bun:"labels,type:jsonb,notnull" json:"labels"`
	RegisteredAt    *time.Time        `bun:"registered_at" json:"registered_at,omitempty"`
	LastHeartbeatAt *time.Time        `bun:"last_heartbeat_at" json:"last_heartbeat_at,omitempty"`
	CreatedAt       time.Time         `bun:"created_at,notnull,default:now()" json:"created_at"`
	UpdatedAt       time.Time         `bun:"updated_at,notnull,default:now()" json:"updated_at"`
	// MIGLayout is the MIG layout an admin declared (nil: none; migration
	// 0030), MIGLayoutReport what its agent last said it did and what
	// waits, at MIGLayoutReportedAt (node_mig_layout.go).
	MIGLayout           *string    `bun:"mig_layout" json:"mig_layout,omitempty"`
	MIGLayoutReport     string     `bun:"mig_layout_report,notnull" json:"mig_layout_report,omitempty"`
	MIGLayoutReportedAt *time.Time `bun:"mig_layout_reported_at" json:"mig_layout_reported_at,omitempty"`
}

var nodeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// ValidNodeName reports whether name may name a node: letters, digits, '.',
// '_' and '-', starting with a letter or digit, at most 63 characters.
func ValidNodeName(name string) bool { return nodeName.MatchString(name) }

// EnsureNode returns the node called name, creating it (status "new") if it
// does not exist yet.
func EnsureNode(ctx context.Context, db bun.IDB, name string) (*Node, error) {
	if !ValidNodeName(name) {
		return nil, fmt.Errorf("models: node name %q: use letters, digits, '.', '_' or '-' (at most 63)", name)
	}
	n := &Node{Name: name, Status: NodeNew, Labels: map[string]string{}}
	_, err := db.NewInsert().Model(n).On("CONFLICT (lower(name)) DO NOTHING").Returning("*").Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: create node %s: %w", name, err)
	}
	if n.ID != 0 {
		return n, nil
	}
	return GetNodeByName(ctx, db, name)
}

// GetNode returns the node with id.
func GetNode(ctx context.Context, db bun.IDB, id int64) (*Node, error) {
	n := new(Node)
	err := db.NewSelect().Model(n).Where("id = ?", id).Scan(ctx)
	return n, notFound(err, fmt.Sprintf("get node %d", id))
}

// GetNodeByName returns the node called name, in any case.
func GetNodeByName(ctx context.Context, db bun.IDB, name string) (*Node, error) {
	n := new(Node)
	err := db.NewSelect().Model(n).Where("lower(name) = lower(?)", name).Scan(ctx)
	return n, notFound(err, "get node "+name)
}

// ListNodes returns every node by name.
func ListNodes(ctx context.Context, db bun.IDB) ([]Node, error) {
	var out []Node
	if err := db.NewSelect().Model(&out).OrderExpr("lower(name)").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list nodes: %w", err)
	}
	return out, nil
}

// MarkStaleNodesDown marks "up" nodes whose last heartbeat is older than
// now-window as "down" and returns their names.
func MarkStaleNodesDown(ctx context.Context, db bun.IDB, now time.Time, window time.Duration) ([]string, error) {
	var names []string
	err := db.NewUpdate().Model((*Node)(nil)).
		Set("status = ?", NodeDown).
		Set("updated_at = ?", now).
		Where("status = ?", NodeUp).
		Where("last_heartbeat_at IS NULL OR last_heartbeat_at < ?", now.Add(-window)).
		Returning("name").
		Scan(ctx, &names)
	if err != nil {
		return nil, fmt.Errorf("models: mark stale nodes down: %w", err)
	}
	return names, nil
}

// SetNodeDrained sets node n's drained flag (nothing new starts on a drained
// node) and signals the change; n is updated from the row.
func SetNodeDrained(ctx context.Context, db bun.IDB, n *Node, drained bool, now time.Time) error {
	if _, err := db.NewUpdate().Model(n).Set("drained = ?", drained).Set("updated_at = ?", now).WherePK().Returning("*").Exec(ctx); err != nil {
		return fmt.Errorf("models: drain node %s: %w", n.Name, err)
	}
	return Signal(ctx, db, ChannelNodes, fmt.Sprint(n.ID))
}
