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

// TeamMemberCounts returns how many users each team has, by team id.
func TeamMemberCounts(ctx context.Context, db bun.IDB) (map[int64]int, error) {
	var rows []struct {
		TeamID int64 `bun:"team_id"`
		N      int   `bun:"n"`
	}
	if err := db.NewRaw("SELECT team_id, count(*) AS n FROM users WHERE team_id IS NOT NULL GROUP BY team_id").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: team member counts: %w", err)
	}
	out := make(map[int64]int, len(rows))
	for _, r := range rows {
		out[r.TeamID] = r.N
	}
	return out, nil
}

// TeamExists reports whether team id exists.
func TeamExists(ctx context.Context, db bun.IDB, id int64) (bool, error) {
	ok, err := db.NewSelect().Model((*Team)(nil)).Where("id = ?", id).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("models: team %d: %w", id, err)
	}
	return ok, nil
}
