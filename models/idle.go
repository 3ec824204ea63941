package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// JobIdle is the idle policy's record of one job: its opt-out, the present
// idle stretch and warning, and whether it was reclaimed.
type JobIdle struct {
	bun.BaseModel `bun:"table:job_idle"`

	JobID       int64      `bun:"job_id,pk" json:"job_id"`
	IdleOK      bool       `bun:"idle_ok,notnull" json:"idle_ok"`
	IdleSince   *time.Time `bun:"idle_since" json:"idle_since,omitempty"`
	WarnedAt    *time.Time `bun:"warned_at" json:"warned_at,omitempty"`
	ReclaimedAt *time.Time `bun:"reclaimed_at" json:"reclaimed_at,omitempty"`
	GPUCount    int        `bun:"gpu_count,notnull" json:"gpu_count"`
}

type idleRow struct {
	JobID      int64      `bun:"job_id"`
	Owner      string     `bun:"owner"`
	Team       string     `bun:"team"`
	Since      time.Time  `bun:"since"`
	LastActive *time.Time `bun:"last_active"`
	LastSample *time.Time `bun:"last_sample"`
	IdleOK     bool       `bun:"idle_ok"`
	InBooking  bool       `bun:"in_booking"`
	WarnedAt   *time.Time `bun:"warned_at"`
}

// IdleAllocations loads every running job's GPUs for the idle policy:
// telemetry since window before now (activity older than that is taken to
// be at the window's start, so idle times are never overstated).
func IdleAllocations(ctx context.Context, db bun.IDB, threshold int, window time.Duration, now time.Time) ([]scheduler.IdleAllocation, error) {
	var rows []idleRow
	from := now.Add(-window)
	err := db.NewRaw(`
WITH live AS (
    SELECT a.job_id, array_agg(a.gpu_id) AS gpus, min(a.created_at) AS since
    FROM allocations a JOIN jobs j ON j.id = a.job_id
    WHERE a.released_at IS NULL AND j.state = 'running'
    GROUP BY a.job_id)
SELECT l.job_id, u.email AS owner, coalesce(t.name, '') AS team, l.since,
    -- Activity is in the samples (their peak) and in the beats since a GPU's last sample.
    greatest((SELECT max(s.at) FROM gpu_samples s WHERE s.gpu_id = ANY (l.gpus) AND s.at >= greatest(l.since, ?)
        AND coalesce(s.utilization_max, s.utilization_pct) > ?),
        (SELECT max(g.telemetry_at) FROM gpus g WHERE g.id = ANY (l.gpus) AND g.sample_beats > 0
        AND g.sample_util_max > ? AND g.telemetry_at >= greatest(l.since, ?)),
        -- An interactive session's server counts its own use (interactive_sessions.go).
        (SELECT isess.last_activity_at FROM interactive_sessions isess WHERE isess.job_id = l.job_id)) AS last_active,
    -- The latest telemetry: a sample, or a beat not yet folded into one.
    greatest((SELECT max(s.at) FROM gpu_samples s WHERE s.gpu_id = ANY (l.gpus) AND s.at >= greatest(l.since, ?)),
        (SELECT max(g.telemetry_at) FROM gpus g WHERE g.id = ANY (l.gpus) AND g.telemetry_at >= greatest(l.since, ?))) AS last_sample,
    coalesce(ji.idle_ok, false) AS idle_ok, ji.warned_at,
    EXISTS (SELECT 1 FROM bookings b WHERE b.user_id = j.owner_id AND b.kind = 'booking' AND b.canceled_at IS NULL
        AND b.starts_at <= ? AND b.ends_at > ?) AS in_booking
FROM live l JOIN jobs j ON j.id = l.job_id JOIN users u ON u.id = j.owner_id
LEFT JOIN teams t ON t.id = j.team_id LEFT JOIN job_idle ji ON ji.job_id = l.job_id
ORDER BY l.job_id`, from, threshold, threshold, from, from, from, now, now).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("models: idle allocations: %w", err)
	}
	out := make([]scheduler.IdleAllocation, len(rows))
	for i, r := range rows {
		a := scheduler.IdleAllocation{JobID: r.JobID, Owner: r.Owner, Team: r.Team, Since: r.Since, IdleOK: r.IdleOK,
			InBooking: r.InBooking, WarnedAt: r.WarnedAt}
		if r.LastActive != nil {
			a.LastActive = *r.LastActive
		} else if r.Since.Before(from) {
			a.LastActive = from
		}
		if r.LastSample != nil {
			a.LastSample = *r.LastSample
		}
		out[i] = a
	}
	return out, nil
}

// RecordIdleWarning stores that job was warned at now for an idle stretch
// that began at since; a nil since clears the warning (activity returned).
func RecordIdleWarning(ctx context.Context, db bun.IDB, jobID int64, since *time.Time, now time.Time) error {
	warned := &now
	if since == nil {
		warned = nil
	}
	_, err := db.NewRaw(`INSERT INTO job_idle (job_id, idle_since, warned_at) VALUES (?, ?, ?)
		ON CONFLICT (job_id) DO UPDATE SET idle_since = EXCLUDED.idle_since, warned_at = EXCLUDED.warned_at`, jobID, since, warned).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: idle warning of job %d: %w", jobID, err)
	}
	return nil
}

// RecordReclaim stores that job's gpus GPUs were given back at now.
func RecordReclaim(ctx context.Context, db bun.IDB, jobID int64, gpus int, now time.Time) error {
	_, err := db.NewRaw(`INSERT INTO job_idle (job_id, reclaimed_at, gpu_count) VALUES (?, ?, ?)
		ON CONFLICT (job_id) DO UPDATE SET reclaimed_at = EXCLUDED.reclaimed_at, gpu_count = EXCLUDED.gpu_count`, jobID, now, gpus).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: reclaim of job %d: %w", jobID, err)
	}
	return nil
}

// SetIdleOK records a job's own opt-out of the idle policy.
func SetIdleOK(ctx context.Context, db bun.IDB, jobID int64, ok bool) error {
	_, err := db.NewRaw(`INSERT INTO job_idle (job_id, idle_ok) VALUES (?, ?)
		ON CONFLICT (job_id) DO UPDATE SET idle_ok = EXCLUDED.idle_ok`, jobID, ok).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: idle_ok of job %d: %w", jobID, err)
	}
	return nil
}

// GetJobIdle returns a job's idle record (zero when none).
func GetJobIdle(ctx context.Context, db bun.IDB, jobID int64) (*JobIdle, error) {
	ji := &JobIdle{JobID: jobID}
	err := db.NewSelect().Model(ji).WherePK().Scan(ctx)
	if err != nil && err != errNoRows {
		return nil, fmt.Errorf("models: idle record of job %d: %w", jobID, err)
	}
	return ji, nil
}

// IdleWarnedCount counts jobs with a standing idle warning.
func IdleWarnedCount(ctx context.Context, db bun.IDB) (int, error) {
	n, err := db.NewSelect().Model((*JobIdle)(nil)).Where("warned_at IS NOT NULL AND reclaimed_at IS NULL").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: idle warnings: %w", err)
	}
	return int(n), nil
}

// ReclaimTimes maps running jobs warned under a release policy to when
// their GPUs will be given back ([1]) and since when they are idle ([0]).
func ReclaimTimes(ctx context.Context, db bun.IDB) (map[int64][2]time.Time, error) {
	cfg, err := SchedulerConfig(ctx, db)
	if err != nil || cfg.IdleAction != "release" {
		return nil, err
	}
	var rows []JobIdle
	if err := db.NewSelect().Model(&rows).Where("warned_at IS NOT NULL AND reclaimed_at IS NULL").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: reclaim times: %w", err)
	}
	out := make(map[int64][2]time.Time, len(rows))
	for _, r := range rows {
		since := *r.WarnedAt
		if r.IdleSince != nil {
			since = *r.IdleSince
		}
		out[r.JobID] = [2]time.Time{since, r.WarnedAt.Add(time.Duration(cfg.IdleGrace))}
	}
	return out, nil
}
