package models

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// IdleTotal is idle GPU-hours of one user or team over a range.
type IdleTotal struct {
	Name  string  `bun:"name" json:"name"`
	Hours float64 `bun:"hours" json:"hours"`
}

// IdleUsage is what the usage page says of idle GPUs over a range: held
// GPU-hours at or below the idle threshold per user and team (from the
// 1-minute roll-ups: a minute whose highest utilization stayed at or below
// it counts), and what the idle policy gave back.
type IdleUsage struct {
	ThresholdPct int         `json:"threshold_pct"`
	Users        []IdleTotal `json:"users"`
	Teams        []IdleTotal `json:"teams"`
	// Reclaims counts jobs reclaimed in the range; ReclaimedGPUs their
	// GPUs; ReclaimedHours the GPU-hours they had sat idle when given back.
	Reclaims       int     `json:"reclaims"`
	ReclaimedGPUs  int     `json:"reclaimed_gpus"`
	ReclaimedHours float64 `json:"reclaimed_hours"`
}

// IdleUsageOver sums idle GPU-hours over r; onlyUser > 0 keeps that user
// alone among users (members see every team but only themselves).
func IdleUsageOver(ctx context.Context, db bun.IDB, r UsageRange, threshold int, onlyUser int64) (IdleUsage, error) {
	out := IdleUsage{ThresholdPct: threshold, Users: []IdleTotal{}, Teams: []IdleTotal{}}
	const idleMinutes = `
WITH idle AS (
    SELECT a.user_id FROM gpu_rollups g
    JOIN allocations a ON a.gpu_id = g.gpu_id AND a.created_at <= g.bucket AND coalesce(a.released_at, 'infinity') > g.bucket
    WHERE g.resolution_s = 60 AND g.bucket >= ? AND g.bucket < ? AND g.utilization_max <= ?)
`
	err := db.NewRaw(idleMinutes+`SELECT u.email AS name, count(*) / 60.0 AS hours FROM idle JOIN users u ON u.id = idle.user_id
		WHERE ? = 0 OR u.id = ? GROUP BY u.email ORDER BY hours DESC, name`, r.From, r.To, threshold, onlyUser, onlyUser).Scan(ctx, &out.Users)
	if err != nil {
		return out, fmt.Errorf("models: idle GPU-hours by user: %w", err)
	}
	err = db.NewRaw(idleMinutes+`SELECT coalesce(t.name, '(no team)') AS name, count(*) / 60.0 AS hours FROM idle JOIN users u ON u.id = idle.user_id
		LEFT JOIN teams t ON t.id = u.team_id GROUP BY 1 ORDER BY hours DESC, name`, r.From, r.To, threshold).Scan(ctx, &out.Teams)
	if err != nil {
		return out, fmt.Errorf("models: idle GPU-hours by team: %w", err)
	}
	err = db.NewRaw(`SELECT count(*), coalesce(sum(gpu_count), 0),
		coalesce(sum(gpu_count * extract(epoch FROM reclaimed_at - coalesce(idle_since, reclaimed_at)) / 3600), 0)
		FROM job_idle WHERE reclaimed_at >= ? AND reclaimed_at < ?`, r.From, r.To).Scan(ctx, &out.Reclaims, &out.ReclaimedGPUs, &out.ReclaimedHours)
	if err != nil {
		return out, fmt.Errorf("models: reclaims: %w", err)
	}
	return out, nil
}
