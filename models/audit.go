package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// AuditEntry records who did what to which object, for the admin's trail.
type AuditEntry struct {
	bun.BaseModel `bun:"table:audit_log"`

	ID           int64          `bun:"id,pk,autoincrement" json:"id"`
	ActorUserID  *int64         `bun:"actor_user_id" json:"actor_user_id,omitempty"`
	ActorTokenID *int64         `bun:"actor_token_id" json:"actor_token_id,omitempty"`
	Action       string         `bun:"action,notnull" json:"action"`
	TargetType   string         `bun:"target_type,notnull" json:"target_type"`
	TargetID     string         `bun:"target_id,notnull" json:"target_id"`
	Details      map[string]any `bun:"details,type:jsonb,notnull" json:"details"`
	RemoteAddr   string         `bun:"remote_addr,notnull" json:"remote_addr"`
	CreatedAt    time.Time      `bun:"created_at,notnull,default:now()" json:"created_at"`
}

// Audit writes an entry; call it in the transaction of the change it records.
func Audit(ctx context.Context, db bun.IDB, e *AuditEntry) error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	if _, err := db.NewInsert().Model(e).Exec(ctx); err != nil {
		return fmt.Errorf("models: audit %s: %w", e.Action, err)
	}
	return nil
}

// RecentAudit returns the newest entries, at most limit.
func RecentAudit(ctx context.Context, db bun.IDB, limit int) ([]AuditEntry, error) {
	var out []AuditEntry
	if err := db.NewSelect().Model(&out).OrderExpr("id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: recent audit: %w", err)
	}
	return out, nil
}
