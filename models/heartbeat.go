package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// heartbeatSQL is a whole heartbeat in one statement (one round trip, its
// own transaction when sent alone): lock the node and mark it up and seen,
// store each reported GPU's telemetry (matched by UUID among the node's
// own) with the moment an allocated GPU went idle, append the samples to
// the usage history, and answer the node's previous status, the UUIDs it
// knew and whether any GPU's availability changed. A node that never
// registered is left alone.
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
    SELECT g.id, g.health, g.processes = '[]'::jsonb AS idle, g.idle_since,
        EXISTS (SELECT 1 FROM allocations a WHERE a.gpu_id = g.id AND a.released_at IS NULL) AS held
    FROM gpus g JOIN t ON t.uuid = g.uuid JOIN n ON n.id = g.node_id AND n.status <> 'new'
    WHERE g.present
), g AS (
    UPDATE gpus g SET utilization_pct = t.utilization_pct, memory_used_mib = t.memory_used_mib,
        temperature_c = t.temperature_c, power_w = t.power_w, power_limit_w = t.power_limit_w,
        health = t.health, health_reason = t.health_reason, processes = t.processes, telemetry_at = ?,
        -- An allocated GPU below the idle threshold has been idle since it first was (gpu_idle.go).
        idle_since = CASE WHEN t.utilization_pct <= ? AND old.held THEN coalesce(old.idle_since, ?) END
    FROM t, old
    WHERE g.id = old.id AND g.uuid = t.uuid
    RETURNING g.id, g.uuid, g.node_id, t.utilization_pct, t.memory_used_mib, t.temperature_c, t.power_w,
        (old.health <> t.health OR old.idle <> (t.processes = '[]'::jsonb)) AS changed
), s AS (
    INSERT INTO gpu_samples (at, gpu_id, node_id, utilization_pct, memory_used_mib, temperature_c, power_w)
    SELECT ?, id, node_id, utilization_pct, memory_used_mib, temperature_c, power_w FROM g
)
SELECT n.status, coalesce((SELECT json_agg(uuid) FROM g), '[]')::text,
    coalesce((SELECT bool_or(changed) FROM g), false)
FROM n`

// RecordHeartbeat stores a node's heartbeat in db (a transaction or not):
// it is up, seen now, each reported GPU (matched by UUID among the node's
// own) gets its telemetry and idle mark, and the samples join the usage
// history. One statement.
func RecordHeartbeat(ctx context.Context, db bun.IDB, nodeID int64, samples []GPUTelemetry, now time.Time) (HeartbeatResult, error) {
	res, err := heartbeat(nodeID, samples, now, func(q string, args []any, dest ...any) error {
		return db.QueryRowContext(ctx, q, args...).Scan(dest...)
	})
	if err == nil && res.WasDown { // notifications: node.up with the change
		err = emitNodeUp(ctx, db, nodeID, now)
	}
	return res, err
}

// Heartbeat is RecordHeartbeat on its own, as one statement committed by
// itself through pgx (a prepared statement, one round trip): the hot path
// of node agents.
//
// A node that was down comes back in a transaction of its own, so that its
// node.up notification commits with the change.
func (db *DB) Heartbeat(ctx context.Context, nodeID int64, samples []GPUTelemetry, now time.Time) (HeartbeatResult, error) {
	var down bool
	if err := db.Pool.QueryRow(ctx, `SELECT status = $2 FROM nodes WHERE id = $1`, nodeID, NodeDown).Scan(&down); err == nil && down {
		var res HeartbeatResult
		err := db.InTx(ctx, func(ctx context.Context, tx *Tx) error {
			var err error
			res, err = RecordHeartbeat(ctx, tx, nodeID, samples, now)
			return err
		})
		return res, err
	}
	return heartbeat(nodeID, samples, now, func(q string, args []any, dest ...any) error {
		return db.Pool.QueryRow(ctx, dollarArgs(q), args...).Scan(dest...)
	})
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
	args := []any{nodeID, now, string(body), now, IdleUtilizationPct, now, now}
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
