package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Team is a group of users sharing a fair-share weight and a GPU cap.
type Team struct {
	bun.BaseModel `bun:"table:teams"`

	ID              int64     `bun:"id,pk,autoincrement" json:"id"`
	Name            string    `bun:"name,notnull" json:"name"`
	FairShareWeight float64   `bun:"fair_share_weight,notnull" json:"fair_share_weight"`
	GPUCap          *int      `bun:"gpu_cap" json:"gpu_cap,omitempty"`
	CreatedAt       time.Time `bun:"created_at,notnull,default:now()" json:"created_at"`
	UpdatedAt       time.Time `bun:"updated_at,notnull,default:now()" json:"updated_at"`
}

// CreateTeam inserts a team; a duplicate name is ErrConflict.
func CreateTeam(ctx context.Context, db bun.IDB, name string, weight float64, gpuCap *int) (*Team, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, fmt.Errorf("models: create team: the name is empty")
	}
	if weight <= 0 {
		weight = 1
	}
	t := &Team{Name: name, FairShareWeight: weight, GPUCap: gpuCap}
	if _, err := db.NewInsert().Model(t).Returning("*").Exec(ctx); err != nil {
		if isUniqueViolation(err, "teams_name_key") {
			return nil, fmt.Errorf("models: create team %s: %w", name, ErrConflict)
		}
		return nil, fmt.Errorf("models: create team %s: %w", name, err)
	}
	return t, nil
}

// SetUserTeam puts a user in a team (nil: no team).
func SetUserTeam(ctx context.Context, db bun.IDB, userID int64, teamID *int64) error {
	if _, err := db.NewUpdate().Model((*User)(nil)).Set("team_id = ?", teamID).Set("updated_at = now()").Where("id = ?", userID).Exec(ctx); err != nil {
		return fmt.Errorf("models: set team of user %d: %w", userID, err)
	}
	return nil
}
