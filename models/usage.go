package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// usageHorizon is how many half-lives back usage is read; older use weighs
// less than 1/32 and is left out.
const usageHorizon = 5

// loadPrincipals fills the snapshot's users and teams: name, share, cap and
// usage in GPU-seconds decayed with halfLife.
func loadPrincipals(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, now time.Time, halfLife time.Duration) error {
	users, err := ListUsers(ctx, db)
	if err != nil {
		return err
	}
	var teams []Team
	if err := db.NewSelect().Model(&teams).OrderExpr("id").Scan(ctx); err != nil {
		return fmt.Errorf("models: snapshot teams: %w", err)
	}
	for _, t := range teams {
		p := scheduler.Principal{Name: t.Name, Share: t.FairShareWeight}
		if t.GPUCap != nil {
			p.GPUCap = *t.GPUCap
		}
		s.Teams[t.ID] = p
	}
	userTeam := map[int64]int64{}
	for _, u := range users {
		name := u.Name
		if name == "" {
			name, _, _ = strings.Cut(u.Email, "@")
		}
		p := scheduler.Principal{Name: name, Share: u.FairShareWeight}
		if u.GPUCap != nil {
			p.GPUCap = *u.GPUCap
		}
		s.Users[u.ID] = p
		if u.TeamID != nil {
			userTeam[u.ID] = *u.TeamID
		}
	}
	// One row per job that held GPUs within the horizon: how many, from when to when.
	var spans []struct {
		UserID int64      `bun:"user_id"`
		TeamID *int64     `bun:"team_id"`
		GPUs   int        `bun:"gpus"`
		Start  time.Time  `bun:"start"`
		End    *time.Time `bun:"end"`
	}
	since := now.Add(-usageHorizon * halfLife)
	err = db.NewSelect().TableExpr("allocations AS a").
		ColumnExpr("a.user_id, j.team_id, count(*) AS gpus, min(a.created_at) AS start").
		ColumnExpr("CASE WHEN bool_or(a.released_at IS NULL) THEN NULL ELSE max(a.released_at) END AS \"end\"").
		Join("JOIN jobs AS j ON j.id = a.job_id").
		Where("a.released_at IS NULL OR a.released_at > ?", since).
		GroupExpr("a.job_id, a.user_id, j.team_id").Scan(ctx, &spans)
	if err != nil {
		return fmt.Errorf("models: snapshot usage: %w", err)
	}
	for _, sp := range spans {
		end := now
		if sp.End != nil && sp.End.Before(now) {
			end = *sp.End
		}
		start := sp.Start
		if start.Before(since) {
			start = since
		}
		u := scheduler.DecayedUsage(sp.GPUs, start, end, now, halfLife)
		if p, ok := s.Users[sp.UserID]; ok {
			p.Usage += u
			s.Users[sp.UserID] = p
		}
		team := userTeam[sp.UserID]
		if sp.TeamID != nil {
			team = *sp.TeamID
		}
		if p, ok := s.Teams[team]; ok && team != 0 {
			p.Usage += u
			s.Teams[team] = p
		}
	}
	return nil
}
