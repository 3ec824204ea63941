package models

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// GPUHoursTotal is one principal's GPU-hours over a range.
type GPUHoursTotal struct {
	Name  string  `json:"name"`
	Hours float64 `json:"hours"`
}

// GPUHours is allocated GPU-hours per bucket, by team and by user, and the
// range's totals, largest first.
type GPUHours struct {
	ByTeam     Series          `json:"by_team"`
	ByUser     Series          `json:"by_user"`
	TeamTotals []GPUHoursTotal `json:"team_totals"`
	UserTotals []GPUHoursTotal `json:"user_totals"`
}

// GPUHoursOver reads the GPU-hours of allocations overlapping each bucket of
// r (a live allocation counts up to now), in one query. The team is the
// job's, else its owner's; "(no team)" otherwise. With onlyUser > 0 the
// per-user figures are that user's alone (teams stay complete).
func GPUHoursOver(ctx context.Context, db bun.IDB, r UsageRange, now time.Time, onlyUser int64) (GPUHours, error) {
	var rows []struct {
		Bucket   time.Time `bun:"bucket"`
		UserID   int64     `bun:"user_id"`
		UserName string    `bun:"user_name"`
		TeamID   int64     `bun:"team_id"`
		TeamName string    `bun:"team_name"`
		Hours    float64   `bun:"hours"`
	}
	err := db.NewRaw(`
WITH b AS (
    SELECT s AS bucket, s + ?::interval AS bucket_end
    FROM generate_series(?::timestamptz, ?::timestamptz - ?::interval, ?::interval) AS s
), a AS (
    SELECT a.user_id, coalesce(j.team_id, u.team_id, 0) AS team_id, a.created_at AS s, coalesce(a.released_at, ?) AS e
    FROM allocations a JOIN jobs j ON j.id = a.job_id JOIN users u ON u.id = a.user_id
    WHERE a.created_at < ? AND (a.released_at IS NULL OR a.released_at > ?)
)
SELECT b.bucket, a.user_id, min(coalesce(nullif(u.name, ''), u.email)) AS user_name, a.team_id,
    coalesce(min(t.name), '(no team)') AS team_name,
    sum(extract(epoch FROM least(a.e, b.bucket_end) - greatest(a.s, b.bucket))) / 3600 AS hours
FROM b JOIN a ON a.s < b.bucket_end AND a.e > b.bucket
JOIN users u ON u.id = a.user_id LEFT JOIN teams t ON t.id = a.team_id
GROUP BY b.bucket, a.user_id, a.team_id ORDER BY b.bucket`,
		r.interval(), r.From, r.To, r.interval(), r.interval(), now, r.To, r.From).Scan(ctx, &rows)
	if err != nil {
		return GPUHours{}, fmt.Errorf("models: GPU-hours: %w", err)
	}
	teams, users := newSeries(r), newSeries(r)
	teamTot, userTot := map[string]float64{}, map[string]float64{}
	for _, row := range rows {
		if row.Hours <= 0 {
			continue
		}
		teams.set(row.Bucket, row.TeamID, row.TeamName, row.Hours)
		teamTot[row.TeamName] += row.Hours
		if onlyUser == 0 || row.UserID == onlyUser {
			users.set(row.Bucket, row.UserID, row.UserName, row.Hours)
			userTot[row.UserName] += row.Hours
		}
	}
	return GPUHours{ByTeam: teams.s, ByUser: users.s, TeamTotals: totals(teamTot), UserTotals: totals(userTot)}, nil
}

// totals sorts a name→hours map into a list, largest first.
func totals(m map[string]float64) []GPUHoursTotal {
	out := make([]GPUHoursTotal, 0, len(m))
	for n, h := range m {
		out = append(out, GPUHoursTotal{Name: n, Hours: h})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Hours != out[j].Hours {
			return out[i].Hours > out[j].Hours
		}
		return strings.Compare(out[i].Name, out[j].Name) < 0
	})
	return out
}
