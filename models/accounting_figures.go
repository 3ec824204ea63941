package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// heldByModelQuery is heldQuery with the GPUs' model: an attempt's
// allocations grouped by model too, so an attempt on two models is two
// intervals whose GPUs (each weighed by its fraction of a GPU, as in
// heldQuery) add up to the attempt's.
const heldByModelQuery = `
SELECT a.user_id, coalesce(j.team_id, u.team_id, 0), a.model, a.gpus, a.fraction, a.created_at, a.released_at
FROM (SELECT al.job_id, al.user_id, al.created_at, al.released_at, g.model, count(*) AS gpus, avg(g.fraction) AS fraction
      FROM allocations al JOIN gpus g ON g.id = al.gpu_id
      WHERE al.created_at < ? AND (al.released_at IS NULL OR al.released_at > ?)
      GROUP BY al.job_id, al.user_id, al.created_at, al.released_at, g.model) a
JOIN jobs j ON j.id = a.job_id JOIN users u ON u.id = a.user_id`

// ModelUse is GPU time of one user, charged to one team, on one GPU model.
type ModelUse struct {
	UserID, TeamID int64
	Model          string
	GPUSeconds     float64
}

// gpuTimeByModel is the GPU time held within [from, to) up to now, per
// user, team and model: the intervals readHeld reads, split by model and
// summed by scheduler.GPUTime, so that over the models it is what the
// usage page counts for the same range.
func gpuTimeByModel(ctx context.Context, db bun.IDB, from, to, now time.Time) ([]ModelUse, error) {
	r, closeRows, err := query(ctx, db, heldByModelQuery, to, from)
	if err != nil {
		return nil, fmt.Errorf("models: GPU time by model: %w", err)
	}
	defer closeRows()
	sums := map[ModelUse]float64{}
	var order []ModelUse
	w := scheduler.UsageWindow{From: from, To: to, Now: now}
	for r.Next() {
		var (
			k   ModelUse
			h   scheduler.Held
			end *time.Time
		)
		if err := r.Scan(&k.UserID, &k.TeamID, &k.Model, &h.GPUs, &h.Fraction, &h.Start, &end); err != nil {
			return nil, fmt.Errorf("models: GPU time by model: %w", err)
		}
		if end != nil {
			h.End = *end
		}
		h.UserID, h.TeamID = k.UserID, k.TeamID
		if _, ok := sums[k]; !ok {
			order = append(order, k)
		}
		sums[k] += scheduler.GPUTime(h, w)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("models: GPU time by model: %w", err)
	}
	out := make([]ModelUse, 0, len(order))
	for _, k := range order {
		k.GPUSeconds = sums[k]
		out = append(out, k)
	}
	return out, nil
}

// PrincipalHours is GPU-hours of one user charged to one team.
type PrincipalHours struct {
	UserID int64   `bun:"user_id"`
	TeamID int64   `bun:"team_id"`
	Hours  float64 `bun:"hours"`
}

// reclaimedHours is, per user and the job's team (else the owner's), the
// idle GPU-hours that the idle policy ended in [from, to): for each run
// whose allocations ended as reclaimed (allocations.end_cause), its GPUs
// times the idle stretch the reclaim ended, from the job's idle start to
// the reclaim (job_idle), as the usage page's "Idle GPU-hours ended"
// counts them.
func reclaimedHours(ctx context.Context, db bun.IDB, from, to time.Time) ([]PrincipalHours, error) {
	var out []PrincipalHours
	err := db.NewRaw(`
SELECT a.user_id, coalesce(j.team_id, u.team_id, 0) AS team_id,
    sum(a.gpus * extract(epoch FROM coalesce(ji.reclaimed_at, a.released_at) - coalesce(ji.idle_since, ji.reclaimed_at, a.released_at))) / 3600 AS hours
FROM (SELECT job_id, user_id, created_at, released_at, count(*) AS gpus FROM allocations
      WHERE end_cause = ? GROUP BY job_id, user_id, created_at, released_at) a
JOIN jobs j ON j.id = a.job_id JOIN users u ON u.id = a.user_id LEFT JOIN job_idle ji ON ji.job_id = a.job_id
WHERE coalesce(ji.reclaimed_at, a.released_at) >= ? AND coalesce(ji.reclaimed_at, a.released_at) < ?
GROUP BY 1, 2`, CauseReclaimed, from, to).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: reclaimed GPU-hours: %w", err)
	}
	return out, nil
}

// bookedIdleHours is, per user (and their team), the GPU-hours their
// bookings held for them in [from, min(to, now)) and they did not use:
// each minute of a booking in force (from its start to its end, cancel or
// early end), its GPUs less the owner's GPUs in use that minute, never
// below 0 (a person's bookings at one minute add up, their GPUs in use are
// counted once). A GPU the owner holds is in use unless the usage page
// counts that minute of it idle (its 1-minute roll-up's highest
// utilization at or below threshold, the idle policy's threshold); a
// minute without telemetry is not called idle.
func bookedIdleHours(ctx context.Context, db bun.IDB, from, to, now time.Time, threshold int) ([]PrincipalHours, error) {
	if now.Before(to) {
		to = now
	}
	var out []PrincipalHours
	if !to.After(from) {
		return out, nil
	}
	err := db.NewRaw(`
WITH b AS (
    SELECT user_id, gpu_count, greatest(starts_at, ?::timestamptz) AS s,
        least(ends_at, coalesce(canceled_at, 'infinity'), ?::timestamptz) AS e
    FROM bookings WHERE kind = 'booking' AND starts_at < ? AND ends_at > ?
), m AS (
    SELECT b.user_id, t AS minute, sum(b.gpu_count) AS booked
    FROM b, generate_series(date_trunc('minute', b.s + interval '59.999999 seconds'), b.e - interval '1 microsecond', interval '1 minute') AS t
    WHERE b.e > b.s GROUP BY 1, 2
), a AS (
    SELECT user_id, gpu_id, created_at, coalesce(released_at, 'infinity') AS released_at FROM allocations
    WHERE created_at < ? AND (released_at IS NULL OR released_at > ?) AND user_id IN (SELECT user_id FROM b)
), busy AS (
    SELECT m.user_id, m.minute, count(*) AS n FROM m
    JOIN a ON a.user_id = m.user_id AND a.created_at <= m.minute AND a.released_at > m.minute
    LEFT JOIN gpu_rollups g ON g.resolution_s = 60 AND g.gpu_id = a.gpu_id AND g.bucket = m.minute
    WHERE g.utilization_max IS NULL OR g.utilization_max > ?
    GROUP BY 1, 2
)
SELECT m.user_id, coalesce(u.team_id, 0) AS team_id, sum(greatest(m.booked - coalesce(busy.n, 0), 0)) / 60.0 AS hours
FROM m LEFT JOIN busy ON busy.user_id = m.user_id AND busy.minute = m.minute JOIN users u ON u.id = m.user_id
GROUP BY 1, 2`, from, to, to, from, to, from, threshold).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: booked idle GPU-hours: %w", err)
	}
	return out, nil
}
