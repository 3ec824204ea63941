package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// SampleEvery is the usage history's raw resolution: a GPU's heartbeats
// accumulate its utilization, and once a sample is this old the next beat
// appends one holding the mean and the peak since the last (so idle
// detection sees a burst between samples). Heartbeats come every few
// seconds; a row per beat per GPU would be 44 million rows a day at 1,024
// GPUs.
const SampleEvery = 10 * time.Second

// heartbeatSQL is a whole heartbeat in one statement (one round trip, its
// own transaction when sent alone): lock the node and mark it up and seen,
// store each reported GPU's telemetry (matched by UUID among the node's
// own) with the moment an allocated GPU went idle, append a sample to the
// usage history where one is due (SampleEvery), and answer the node's
// previous status, the UUIDs it knew and whether any GPU's availability
// changed. A node that never registered is left alone.
const heartbeatSQL = `
WITH n AS (
    SELECT id, status FROM nodes WHERE id = ? FOR UPDATE
), up AS (
    UPDATE nodes SET status = 'up', last_heartbeat_at = ? FROM n
    WHERE nodes.id = n.id AND n.status <> 'new' RETURNING nodes.id
), t AS (
    SELECT * FROM jsonb_to_recordset(?::jsonb) AS t(uuid text, utilization_pct int, memory_used_mib bigint,
        temperature_c int, power_w int, power_limit_w int, health text, health_reason text, processes jsonb)
), old AS (
    SELECT g.id, g.health, g.processes = '[]'::jsonb AS idle, g.idle_since, g.kind,
        g.sample_at, g.sample_beats, g.sample_util_sum, g.sample_util_max,
        -- A sample is due when the last one is SampleEvery old (or in the future: the clock went back).
        (g.sample_at IS NULL OR g.sample_at > ? OR g.sample_at <= ?) AS due,
        EXISTS (SELECT 1 FROM allocations a WHERE a.gpu_id = g.id AND a.released_at IS NULL) AS held
    FROM gpus g JOIN t ON t.uuid = g.uuid JOIN n ON n.id = g.node_id AND n.status <> 'new'
    WHERE g.present
), g AS (
    UPDATE gpus g SET utilization_pct = t.utilization_pct, memory_used_mib = t.memory_used_mib,
        temperature_c = t.temperature_c, power_w = t.power_w, power_limit_w = t.power_limit_w,
        health = t.health, health_reason = t.health_reason, processes = t.processes, telemetry_at = ?,
        -- An allocated GPU below the idle threshold has been idle since it first was (gpu_idle.go).
        -- A MIG device has no utilization of its own: it is never taken for idle.
        idle_since = CASE WHEN t.utilization_pct <= ? AND old.held AND old.kind = 'whole' THEN coalesce(old.idle_since, ?) END,
        -- Utilization since the last sample accumulates until the next one is due.
        sample_at = CASE WHEN old.due THEN ? ELSE old.sample_at END,
        sample_beats = CASE WHEN old.due THEN 0 ELSE old.sample_beats + 1 END,
        sample_util_sum = CASE WHEN old.due THEN 0 ELSE old.sample_util_sum + t.utilization_pct END,
        sample_util_max = CASE WHEN old.due THEN 0 ELSE greatest(old.sample_util_max, t.utilization_pct) END
    FROM t, old
    WHERE g.id = old.id AND g.uuid = t.uuid
    RETURNING g.id, g.uuid, g.node_id, old.due, t.memory_used_mib, t.temperature_c, t.power_w,
        round((old.sample_util_sum + t.utilization_pct)::numeric / (old.sample_beats + 1)) AS util_avg,
        greatest(old.sample_util_max, t.utilization_pct) AS util_max,
        (old.health <> t.health OR old.idle <> (t.processes = '[]'::jsonb)) AS changed
), s AS (
    INSERT INTO gpu_samples (at, gpu_id, node_id, utilization_pct, utilization_max, memory_used_mib, temperature_c, power_w)
    SELECT ?, id, node_id, util_avg, util_max, memory_used_mib, temperature_c, power_w FROM g WHERE due
)
SELECT n.status, coalesce((SELECT json_agg(uuid) FROM g), '[]')::text,
    coalesce((SELECT bool_or(changed) FROM g), false)
FROM n`

// heartbeatAloneSQL is heartbeatSQL as a transaction of its own that
// commits without waiting for the WAL flush: telemetry is superseded every
// few seconds, so a crash may lose only the last instant of heartbeats,
// which the next ones restore (liveness allows for missed beats).
var heartbeatAloneSQL = strings.Replace(strings.Replace(heartbeatSQL,
	"WITH n AS (", "WITH async AS (SELECT set_config('synchronous_commit', 'off', true)), n AS (", 1),
	"\nFROM n", "\nFROM n, async", 1)

// RecordHeartbeat stores a node's heartbeat in tx: it is up, seen now,
// each reported GPU (matched by UUID among the node's own) gets its
// telemetry and idle mark, and the samples join the usage history. One
// statement, and node.up in tx when the node was down.
func RecordHeartbeat(ctx context.Context, tx *Tx, nodeID int64, samples []GPUTelemetry, now time.Time) (HeartbeatResult, error) {
	res, err := heartbeat(nodeID, samples, now, func(q string, args []any, dest ...any) error {
		return tx.QueryRowContext(ctx, q, args...).Scan(dest...)
	})
	if err == nil && res.WasDown { // notifications: node.up with the change
		err = emitNodeUp(ctx, tx, nodeID, now)
	}
	return res, err
}

// Heartbeat is RecordHeartbeat on its own, as one statement committed by
// itself through pgx (a prepared statement, one round trip, no wait for the
// WAL flush): the hot path of node agents.
//
// A node that was down and comes back gets its node.up notification in a
// transaction right after: the heartbeat itself stays one round trip.
func (db *DB) Heartbeat(ctx context.Context, nodeID int64, samples []GPUTelemetry, now time.Time) (HeartbeatResult, error) {
	res, err := heartbeat(nodeID, samples, now, func(_ string, args []any, dest ...any) error {
		return db.Pool.QueryRow(ctx, dollarArgs(heartbeatAloneSQL), args...).Scan(dest...)
	})
	if err == nil && res.WasDown {
		err = db.InTx(ctx, func(ctx context.Context, tx *Tx) error { return emitNodeUp(ctx, tx, nodeID, now) })
	}
	return res, err
}

func heartbeat(nodeID int64, samples []GPUTelemetry, now time.Time, scan func(q string, args []any, dest ...any) error) (HeartbeatResult, error) {
	var res HeartbeatResult
	if samples == nil {
		samples = []GPUTelemetry{}
	}
	for i := range samples {
		if samples[i].Processes == nil {
			samples[i].Processes = []GPUProcess{}
		}
	}
	body, err := json.Marshal(samples)
	if err != nil {
		return res, fmt.Errorf("models: heartbeat of node %d: %w", nodeID, err)
	}
	var prev, seenJSON string
	args := []any{nodeID, now, string(body), now, now.Add(-SampleEvery), now, IdleUtilizationPct, now, now, now}
	if err := scan(heartbeatSQL, args, &prev, &seenJSON, &res.AvailabilityChanged); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			err = sql.ErrNoRows
		}
		return res, notFound(err, fmt.Sprintf("heartbeat of node %d", nodeID))
	}
	if prev == NodeNew {
		res.Unregistered = true // it must register before it can beat
		return res, nil
	}
	res.CameBack = prev != NodeUp
	res.WasDown = prev == NodeDown
	var seen []string
	if err := json.Unmarshal([]byte(seenJSON), &seen); err != nil {
		return res, fmt.Errorf("models: heartbeat of node %d: %w", nodeID, err)
	}
	known := make(map[string]bool, len(seen))
	for _, u := range seen {
		known[u] = true
	}
	for _, s := range samples {
		if !known[s.UUID] {
			res.Unknown = append(res.Unknown, s.UUID)
		}
	}
	return res, nil
}
