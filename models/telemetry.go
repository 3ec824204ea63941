package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Roll-up resolutions of gpu_rollups.
const (
	RollupMinute = time.Minute
	RollupHour   = time.Hour
)

// Retention says how long each resolution of the usage history is kept.
type Retention struct {
	Raw    time.Duration // gpu_samples, one per GPU every SampleEvery
	Minute time.Duration // 1-minute roll-ups
	Hour   time.Duration // 1-hour roll-ups and queue samples
}

// DefaultRetention keeps raw samples two days, minutes five weeks and hours
// about 13 months: enough for the usage page's day, week and month ranges.
func DefaultRetention() Retention {
	return Retention{Raw: 48 * time.Hour, Minute: 35 * 24 * time.Hour, Hour: 400 * 24 * time.Hour}
}

// RollupResult counts what one roll-up run wrote and removed.
type RollupResult struct {
	Minutes, Hours                           int64 // roll-up rows written (inserted or updated)
	RawDeleted, MinutesDeleted, HoursDeleted int64
	QueueDeleted                             int64
}

// RollUp folds complete minutes of raw samples into 1-minute roll-ups and
// those into 1-hour roll-ups, then deletes what is past
// its retention. Each step restarts from the newest bucket already written
// (recomputed, since late samples may have joined it), so runs are
// idempotent and cheap; call it in one transaction.
func RollUp(ctx context.Context, db bun.IDB, now time.Time, keep Retention) (RollupResult, error) {
	var res RollupResult
	var err error
	minuteEnd := now.Truncate(time.Minute)
	res.Minutes, err = rollMinutes(ctx, db, minuteEnd)
	if err != nil {
		return res, err
	}
	// The current hour is rolled up as far as its minutes go, and redone
	// on the next run.
	res.Hours, err = rollHours(ctx, db, minuteEnd)
	if err != nil {
		return res, err
	}
	steps := []struct {
		n     *int64
		query string
		keep  time.Duration
	}{
		{&res.RawDeleted, `DELETE FROM gpu_samples WHERE at < ?`, keep.Raw},
		{&res.MinutesDeleted, `DELETE FROM gpu_rollups WHERE resolution_s = 60 AND bucket < ?`, keep.Minute},
		{&res.HoursDeleted, `DELETE FROM gpu_rollups WHERE resolution_s = 3600 AND bucket < ?`, keep.Hour},
		{&res.QueueDeleted, `DELETE FROM queue_samples WHERE at < ?`, keep.Hour},
	}
	for _, s := range steps {
		if s.keep <= 0 {
			continue
		}
		r, err := db.ExecContext(ctx, s.query, now.Add(-s.keep))
		if err != nil {
			return res, fmt.Errorf("models: telemetry retention: %w", err)
		}
		*s.n, _ = r.RowsAffected()
	}
	return res, nil
}

// rollMinutes writes 1-minute buckets from the newest one already rolled
// (or the oldest raw sample) up to end, exclusive.
func rollMinutes(ctx context.Context, db bun.IDB, end time.Time) (int64, error) {
	r, err := db.ExecContext(ctx, `
WITH since AS (
    SELECT coalesce((SELECT max(bucket) FROM gpu_rollups WHERE resolution_s = 60), '-infinity'::timestamptz) AS t
)
INSERT INTO gpu_rollups (resolution_s, bucket, gpu_id, node_id, samples, utilization_avg, utilization_max,
    memory_used_avg, temperature_max, power_avg)
SELECT 60, date_trunc('minute', s.at), s.gpu_id, max(s.node_id), count(*), avg(s.utilization_pct), max(coalesce(s.utilization_max, s.utilization_pct)),
    avg(s.memory_used_mib)::bigint, max(s.temperature_c), avg(s.power_w)
FROM gpu_samples s, since
WHERE s.at >= since.t AND s.at < ?
GROUP BY 2, 3
ON CONFLICT (resolution_s, gpu_id, bucket) DO UPDATE SET node_id = excluded.node_id, samples = excluded.samples,
    utilization_avg = excluded.utilization_avg, utilization_max = excluded.utilization_max,
    memory_used_avg = excluded.memory_used_avg, temperature_max = excluded.temperature_max,
    power_avg = excluded.power_avg`, end)
	if err != nil {
		return 0, fmt.Errorf("models: telemetry roll-up to minutes: %w", err)
	}
	n, _ := r.RowsAffected()
	return n, nil
}

// rollHours writes 1-hour buckets from 1-minute ones, weighting each minute
// by its sample count, from the newest hour already rolled up to end.
func rollHours(ctx context.Context, db bun.IDB, end time.Time) (int64, error) {
	r, err := db.ExecContext(ctx, `
WITH since AS (
    SELECT coalesce((SELECT max(bucket) FROM gpu_rollups WHERE resolution_s = 3600), '-infinity'::timestamptz) AS t
)
INSERT INTO gpu_rollups (resolution_s, bucket, gpu_id, node_id, samples, utilization_avg, utilization_max,
    memory_used_avg, temperature_max, power_avg)
SELECT 3600, date_trunc('hour', m.bucket), m.gpu_id, max(m.node_id), sum(m.samples),
    sum(m.utilization_avg * m.samples) / sum(m.samples), max(m.utilization_max),
    (sum(m.memory_used_avg * m.samples) / sum(m.samples))::bigint, max(m.temperature_max),
    sum(m.power_avg * m.samples) / sum(m.samples)
FROM gpu_rollups m, since
WHERE m.resolution_s = 60 AND m.bucket >= since.t AND m.bucket < ?
GROUP BY 2, 3
ON CONFLICT (resolution_s, gpu_id, bucket) DO UPDATE SET node_id = excluded.node_id, samples = excluded.samples,
    utilization_avg = excluded.utilization_avg, utilization_max = excluded.utilization_max,
    memory_used_avg = excluded.memory_used_avg, temperature_max = excluded.temperature_max,
    power_avg = excluded.power_avg`, end)
	if err != nil {
		return 0, fmt.Errorf("models: telemetry roll-up to hours: %w", err)
	}
	n, _ := r.RowsAffected()
	return n, nil
}

// SampleQueue records the queue's length now and how long its jobs have
// waited so far, for the usage page's queue graph.
func SampleQueue(ctx context.Context, db bun.IDB, now time.Time) error {
	_, err := db.ExecContext(ctx, `
INSERT INTO queue_samples (at, queued, queued_gpus, running, max_wait_s, avg_wait_s)
SELECT ?, count(*) FILTER (WHERE state = 'queued'),
    coalesce(sum(gpu_count) FILTER (WHERE state = 'queued'), 0),
    count(*) FILTER (WHERE state IN ('scheduled', 'allocating', 'running')),
    greatest(coalesce(max(extract(epoch FROM ? - submitted_at)) FILTER (WHERE state = 'queued'), 0), 0),
    greatest(coalesce(avg(extract(epoch FROM ? - submitted_at)) FILTER (WHERE state = 'queued'), 0), 0)
FROM jobs WHERE state IN ('queued', 'scheduled', 'allocating', 'running')
ON CONFLICT (at) DO NOTHING`, now, now, now)
	if err != nil {
		return fmt.Errorf("models: queue sample: %w", err)
	}
	return nil
}
