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
	// Kind is GPUWhole, or GPUMIG for a MIG device of the GPU ParentUUID,
	// with its Profile and its Slices of the parent's ParentSlices.
	Kind         string  `bun:"kind,notnull" json:"kind"`
	ParentUUID   *string `bun:"parent_uuid" json:"parent_uuid,omitempty"`
	Profile      string  `bun:"profile,notnull" json:"profile,omitempty"`
	Slices       int     `bun:"slices,notnull" json:"slices,omitempty"`
	ParentSlices int     `bun:"parent_slices,notnull" json:"parent_slices,omitempty"`
	// Fraction is the share of a GPU the device is: 1 for a whole GPU,
	// Slices/ParentSlices for a MIG device. Fair share charges it. The
	// database computes it: never written.
	Fraction  float64   `bun:"fraction,notnull" json:"fraction"`
	CreatedAt time.Time `bun:"created_at,notnull,default:now()" json:"created_at"`
	UpdatedAt time.Time `bun:"updated_at,notnull,default:now()" json:"updated_at"`
	// The heartbeats since the last usage sample (SampleEvery), which the
	// heartbeat alone writes.
	SampleAt      *time.Time `bun:"sample_at,scanonly" json:"-"`
	SampleBeats   int        `bun:"sample_beats,scanonly" json:"-"`
	SampleUtilSum int        `bun:"sample_util_sum,scanonly" json:"-"`
	SampleUtilMax int        `bun:"sample_util_max,scanonly" json:"-"`
}

// The kinds of GPU row.
const (
	GPUWhole = "whole" // a GPU outside MIG mode
	GPUMIG   = "mig"   // a MIG device: a slice of a GPU in MIG mode
	GPUShare = "share" // a slot of a shared GPU: 1 of ParentSlices slots of the GPU ParentUUID
)

// GPUInventory is what a node reports of one schedulable device when it
// registers: a whole GPU, or a MIG device (Kind GPUMIG, with its parent's
// index and UUID, its profile and its compute slices).
type GPUInventory struct {
	Index        int     `json:"index"`
	UUID         string  `json:"uuid"`
	Model        string  `json:"model"`
	MemoryMiB    int64   `json:"memory_mib"`
	NVLinkGroup  *int    `json:"nvlink_group,omitempty"`
	Kind         string  `json:"kind"`
	ParentUUID   *string `json:"parent_uuid"`
	Profile      string  `json:"profile"`
	Slices       int     `json:"slices"`
	ParentSlices int     `json:"parent_slices"`
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
// (allocations and history refer to them) but marked not present, as is a
// GPU put in MIG mode (its MIG devices are reported instead).
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
INSERT INTO gpus (node_id, idx, uuid, model, memory_mib, nvlink_group, kind, parent_uuid, profile, slices, parent_slices,
    present, updated_at)
SELECT ?, t.index, t.uuid, t.model, t.memory_mib, t.nvlink_group, coalesce(nullif(t.kind, ''), 'whole'), t.parent_uuid,
    coalesce(t.profile, ''), coalesce(t.slices, 0), coalesce(t.parent_slices, 0), true, ?
FROM jsonb_to_recordset(?::jsonb) AS t(index int, uuid text, model text, memory_mib bigint, nvlink_group int,
    kind text, parent_uuid text, profile text, slices int, parent_slices int)
ON CONFLICT (uuid) DO UPDATE SET node_id = excluded.node_id, idx = excluded.idx, model = excluded.model,
    memory_mib = excluded.memory_mib, nvlink_group = excluded.nvlink_group, kind = excluded.kind,
    parent_uuid = excluded.parent_uuid, profile = excluded.profile, slices = excluded.slices,
    parent_slices = excluded.parent_slices, present = true, updated_at = excluded.updated_at`, nodeID, now, string(inv))
	if err != nil {
		return fmt.Errorf("models: register node %d: upsert gpus: %w", nodeID, err)
	}
	return nil
}

// HeartbeatResult says what a heartbeat changed that others care about.
type HeartbeatResult struct {
	CameBack bool // the node was not up before
	WasDown  bool // the node was marked down before (node.up is sent)
	// Unregistered is set when the node never registered: it must, first.
	Unregistered bool
	Unknown      []string // reported UUIDs the server does not know for this node
	// AvailabilityChanged is set when a GPU's health, or whether processes
	// run on it, changed: the scheduler may now place (or no longer place)
	// jobs there.
	AvailabilityChanged bool
}
