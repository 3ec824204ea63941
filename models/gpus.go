package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// GPU health values.
const (
	HealthOK       = "ok"
	HealthDegraded = "degraded"
	HealthFailed   = "failed"
)

// GPUProcess is a compute process a node agent saw on a GPU.
type GPUProcess struct {
	PID       int    `json:"pid"`
	User      string `json:"user"`
	Name      string `json:"name"`
	MemoryMiB int64  `json:"memory_mib"`
}

// GPU is one accelerator on a node, with its latest telemetry.
type GPU struct {
	bun.BaseModel `bun:"table:gpus,alias:gpu"`

	ID             int64        `bun:"id,pk,autoincrement" json:"id"`
	NodeID         int64        `bun:"node_id,notnull" json:"node_id"`
	Index          int          `bun:"idx,notnull" json:"index"`
	UUID           string       `bun:"uuid,notnull" json:"uuid"`
	Model          string       `bun:"model,notnull" json:"model"`
	MemoryMiB      int64        `bun:"memory_mib,notnull" json:"memory_mib"`
	Health         string       `bun:"health,notnull" json:"health"`
	HealthReason   string       `bun:"health_reason,notnull" json:"health_reason,omitempty"`
	NVLinkGroup    *int         `bun:"nvlink_group" json:"nvlink_group,omitempty"`
	Drained        bool         `bun:"drained,notnull" json:"drained"`
	Present        bool         `bun:"present,notnull" json:"present"`
	UtilizationPct int          `bun:"utilization_pct,notnull" json:"utilization_pct"`
	MemoryUsedMiB  int64        `bun:"memory_used_mib,notnull" json:"memory_used_mib"`
	TemperatureC   int          `bun:"temperature_c,notnull" json:"temperature_c"`
	PowerW         int          `bun:"power_w,notnull" json:"power_w"`
	PowerLimitW    int          `bun:"power_limit_w,notnull" json:"power_limit_w"`
	Processes      []GPUProcess `bun:"processes,type:jsonb,notnull" json:"processes"`
	TelemetryAt    *time.Time   `bun:"telemetry_at" json:"telemetry_at,omitempty"`
	// IdleSince is when an allocated GPU's utilization last fell near zero
	// (nil: busy, or not allocated); see IdleAfter.
	IdleSince *time.Time `bun:"idle_since" json:"idle_since,omitempty"`
	CreatedAt time.Time  `bun:"created_at,notnull,default:now()" json:"created_at"`
	UpdatedAt time.Time  `bun:"updated_at,notnull,default:now()" json:"updated_at"`
}

// GPUInventory is what a node reports of one GPU when it registers.
type GPUInventory struct {
	Index       int    `json:"index"`
	UUID        string `json:"uuid"`
	Model       string `json:"model"`
	MemoryMiB   int64  `json:"memory_mib"`
	NVLinkGroup *int   `json:"nvlink_group,omitempty"`
}

// GPUTelemetry is one GPU's sample in a heartbeat.
type GPUTelemetry struct {
	UUID           string       `json:"uuid"`
	UtilizationPct int          `json:"utilization_pct"`
	MemoryUsedMiB  int64        `json:"memory_used_mib"`
	TemperatureC   int          `json:"temperature_c"`
	PowerW         int          `json:"power_w"`
	PowerLimitW    int          `json:"power_limit_w"`
	Health         string       `json:"health"`
	HealthReason   string       `json:"health_reason"`
	Processes      []GPUProcess `json:"processes"`
}

// RegisterNode records that a node's agent started: its host, version and
// GPU inventory. GPUs are matched by UUID; those no longer reported are kept
// (allocations and history refer to them) but marked not present.
func RegisterNode(ctx context.Context, db bun.IDB, nodeID int64, hostname, version string, gpus []GPUInventory, now time.Time) error {
	if _, err := db.NewUpdate().Model((*Node)(nil)).
		Set("hostname = ?", hostname).Set("agent_version = ?", version).
		Set("status = ?", NodeUp).Set("registered_at = ?", now).Set("last_heartbeat_at = ?", now).
		Set("updated_at = ?", now).Where("id = ?", nodeID).Exec(ctx); err != nil {
		return fmt.Errorf("models: register node %d: %w", nodeID, err)
	}
	if _, err := db.NewUpdate().Model((*GPU)(nil)).Set("present = false").Where("node_id = ?", nodeID).Exec(ctx); err != nil {
		return fmt.Errorf("models: register node %d: retire gpus: %w", nodeID, err)
	}
	if gpus == nil {
		gpus = []GPUInventory{}
	}
	inv, err := json.Marshal(gpus)
	if err != nil {
		return fmt.Errorf("models: register node %d: %w", nodeID, err)
	}
	_, err = db.ExecContext(ctx, `
INSERT INTO gpus (node_id, idx, uuid, model, memory_mib, nvlink_group, present, updated_at)
SELECT ?, t.index, t.uuid, t.model, t.memory_mib, t.nvlink_group, true, ?
FROM jsonb_to_recordset(?::jsonb) AS t(index int, uuid text, model text, memory_mib bigint, nvlink_group int)
ON CONFLICT (uuid) DO UPDATE SET node_id = excluded.node_id, idx = excluded.idx, model = excluded.model,
    memory_mib = excluded.memory_mib, nvlink_group = excluded.nvlink_group, present = true,
    updated_at = excluded.updated_at`, nodeID, now, string(inv))
	if err != nil {
		return fmt.Errorf("models: register node %d: upsert gpus: %w", nodeID, err)
	}
	return nil
}

// HeartbeatResult says what a heartbeat changed that others care about.
type HeartbeatResult struct {
	CameBack bool // the node was not up before
	// Unregistered is set when the node never registered: it must, first.
	Unregistered bool
	Unknown      []string // reported UUIDs the server does not know for this node
	// AvailabilityChanged is set when a GPU's health, or whether processes
	// run on it, changed: the scheduler may now place (or no longer place)
	// jobs there.
	AvailabilityChanged bool
}

// RecordHeartbeat stores a node's heartbeat: it is up, seen now, and each
// reported GPU (matched by UUID among the node's own) gets its telemetry.
func RecordHeartbeat(ctx context.Context, db bun.IDB, nodeID int64, samples []GPUTelemetry, now time.Time) (HeartbeatResult, error) {
	var res HeartbeatResult
	var prev string
	if err := db.NewRaw(`SELECT status FROM nodes WHERE id = ? FOR UPDATE`, nodeID).Scan(ctx, &prev); err != nil {
		return res, notFound(err, fmt.Sprintf("heartbeat of node %d", nodeID))
	}
	if prev == NodeNew {
		res.Unregistered = true // it must register before it can beat
		return res, nil
	}
	res.CameBack = prev != NodeUp
	if _, err := db.NewUpdate().Model((*Node)(nil)).
		Set("status = ?", NodeUp).Set("last_heartbeat_at = ?", now).
		Where("id = ?", nodeID).Exec(ctx); err != nil {
		return res, fmt.Errorf("models: heartbeat of node %d: %w", nodeID, err)
	}
	if prev == NodeDown { // notifications (issue 13)
		if err := emitNodeUp(ctx, db, nodeID, now); err != nil {
			return res, err
		}
	}
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
	var seen []struct {
		UUID    string `bun:"uuid"`
		Changed bool   `bun:"changed"`
	}
	err = db.NewRaw(`
WITH t AS (
    SELECT * FROM jsonb_to_recordset(?::jsonb) AS t(uuid text, utilization_pct int, memory_used_mib bigint,
        temperature_c int, power_w int, power_limit_w int, health text, health_reason text, processes jsonb)
), old AS (
    SELECT g.id, g.health, g.processes = '[]'::jsonb AS idle FROM gpus g JOIN t ON t.uuid = g.uuid
    WHERE g.node_id = ? AND g.present
)
UPDATE gpus g SET utilization_pct = t.utilization_pct, memory_used_mib = t.memory_used_mib,
    temperature_c = t.temperature_c, power_w = t.power_w, power_limit_w = t.power_limit_w,
    health = t.health, health_reason = t.health_reason, processes = t.processes, telemetry_at = ?
FROM t, old
WHERE g.uuid = t.uuid AND old.id = g.id
RETURNING g.uuid, (old.health <> t.health OR old.idle <> (t.processes = '[]'::jsonb)) AS changed`,
		string(body), nodeID, now).Scan(ctx, &seen)
	if err != nil {
		return res, fmt.Errorf("models: heartbeat of node %d: telemetry: %w", nodeID, err)
	}
	known := make(map[string]bool, len(seen))
	for _, r := range seen {
		known[r.UUID] = true
		res.AvailabilityChanged = res.AvailabilityChanged || r.Changed
	}
	for _, s := range samples {
		if !known[s.UUID] {
			res.Unknown = append(res.Unknown, s.UUID)
		}
	}
	return res, nil
}
