package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// SetUserDisabled disables (at now) or re-enables a user. A disabled user
// cannot sign in; their sessions end and their tokens stop working at once
// (the token and session caches are told through the tokens channel).
func SetUserDisabled(ctx context.Context, db bun.IDB, id int64, disabled bool, now time.Time) error {
	q := db.NewUpdate().Model((*User)(nil)).Set("updated_at = now()").Where("id = ?", id)
	if disabled {
		q = q.Set("disabled_at = coalesce(disabled_at, ?)", now)
	} else {
		q = q.Set("disabled_at = NULL")
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: disable user %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("models: disable user %d: %w", id, ErrNotFound)
	}
	if disabled {
		if _, err := EndUserSessions(ctx, db, id, now); err != nil {
			return err
		}
	}
	return Signal(ctx, db, ChannelTokens, fmt.Sprintf("user:%d", id))
}

// ListTeams returns every team by name.
func ListTeams(ctx context.Context, db bun.IDB) ([]Team, error) {
	var out []Team
	if err := db.NewSelect().Model(&out).OrderExpr("lower(name)").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list teams: %w", err)
	}
	return out, nil
}

// UpdateTeam sets a team's fair-share weight and GPU cap (nil: none).
func UpdateTeam(ctx context.Context, db bun.IDB, id int64, weight float64, gpuCap *int) (*Team, error) {
	t := new(Team)
	err := db.NewUpdate().Model(t).Set("fair_share_weight = ?", weight).Set("gpu_cap = ?", gpuCap).
		Set("updated_at = now()").Where("id = ?", id).Returning("*").Scan(ctx)
	return t, notFound(err, fmt.Sprintf("update team %d", id))
}

// GPUCountsByNode returns how many present GPUs each node has.
func GPUCountsByNode(ctx context.Context, db bun.IDB) (map[int64]int, error) {
	var rows []struct {
		NodeID int64 `bun:"node_id"`
		N      int   `bun:"n"`
	}
	if err := db.NewRaw("SELECT node_id, count(*) AS n FROM gpus WHERE present GROUP BY node_id").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: count GPUs by node: %w", err)
	}
	out := make(map[int64]int, len(rows))
	for _, r := range rows {
		out[r.NodeID] = r.N
	}
	return out, nil
}

// AuditFilter selects audit entries: by actor, action (prefix), time range,
// and entries older than BeforeID (for paging; 0: the newest).
type AuditFilter struct {
	ActorUserID *int64
	Action      string
	From, To    *time.Time
	BeforeID    int64
	Limit       int
}

// AuditWithActor is an audit entry with its actor's email.
type AuditWithActor struct {
	AuditEntry `bun:",extend"`
	ActorEmail *string `bun:"actor_email"`
}

// ListAudit returns entries matching f, newest first.
func ListAudit(ctx context.Context, db bun.IDB, f AuditFilter) ([]AuditWithActor, error) {
	var out []AuditWithActor
	q := db.NewSelect().Model(&out).ColumnExpr("audit_entry.*").ColumnExpr("u.email AS actor_email").
		Join("LEFT JOIN users AS u ON u.id = audit_entry.actor_user_id").
		OrderExpr("audit_entry.id DESC").Limit(int64(f.Limit))
	if f.ActorUserID != nil {
		q = q.Where("audit_entry.actor_user_id = ?", *f.ActorUserID)
	}
	if f.Action != "" {
		q = q.Where("audit_entry.action LIKE ? || '%'", f.Action)
	}
	if f.From != nil {
		q = q.Where("audit_entry.created_at >= ?", *f.From)
	}
	if f.To != nil {
		q = q.Where("audit_entry.created_at < ?", *f.To)
	}
	if f.BeforeID > 0 {
		q = q.Where("audit_entry.id < ?", f.BeforeID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list audit: %w", err)
	}
	return out, nil
}
