package api

import "time"

// NodeGPU is one schedulable device in a node's registration: a whole GPU,
// or a MIG device of a GPU in MIG mode (which is then not offered whole).
type NodeGPU struct {
	// Index is the GPU's NVML index; a MIG device's is its parent's.
	Index int `json:"index"`
	// UUID is "GPU-…" for a GPU, "MIG-…" for a MIG device: what
	// CUDA_VISIBLE_DEVICES takes.
	UUID  string `json:"uuid"`
	Model string `json:"model"`
	// MemoryMiB is the device's own memory: a MIG device's share.
	MemoryMiB   int64 `json:"memory_mib"`
	NVLinkGroup *int  `json:"nvlink_group,omitempty"`
	// Kind is KindWhole (the default when empty), KindMIG or KindShare.
	Kind string `json:"kind,omitempty"`
	// MIG names the device's parent GPU and profile; set exactly when Kind
	// is KindMIG.
	MIG *NodeMIG `json:"mig,omitempty"`
	// Share names a slot's shared GPU; set exactly when Kind is KindShare.
	Share *NodeShare `json:"share,omitempty"`
}

// NodeShare describes one slot of a shared GPU in a registration: the GPU
// (by UUID; the slot's own UUID is the agent's name for it) and how many
// slots it is shared into. MemoryMiB of the slot is the GPU's over Slots.
type NodeShare struct {
	ParentUUID string `json:"parent_uuid"`
	Slots      int    `json:"slots"`
}

// The kinds of schedulable device in a registration.
const (
	KindWhole = "whole" // a GPU outside MIG mode
	KindMIG   = "mig"   // a MIG device: a slice of a GPU in MIG mode
	KindShare = "share" // a slot of a GPU an admin shares N ways (time-sliced)
)

// NodeMIG describes a MIG device in a registration.
type NodeMIG struct {
	ParentUUID string `json:"parent_uuid"`
	// Profile is its name as nvidia-smi prints it: "1g.10gb", "3g.40gb".
	Profile string `json:"profile"`
	// Slices counts its compute slices, ParentSlices those of the whole
	// GPU (7 on an H100): the device is Slices/ParentSlices of a GPU.
	Slices       int `json:"slices"`
	ParentSlices int `json:"parent_slices"`
}

// RegisterNodeRequest is the body of POST /api/v1/nodes/register.
type RegisterNodeRequest struct {
	Hostname     string    `json:"hostname"`
	AgentVersion string    `json:"agent_version"`
	GPUs         []NodeGPU `json:"gpus"`
}

// RegisterNodeResponse is the answer to a registration.
type RegisterNodeResponse struct {
	NodeID             int64  `json:"node_id"`
	Name               string `json:"name"`
	HeartbeatIntervalS int    `json:"heartbeat_interval_s"`
}

// GPUProcess is a compute process seen on a GPU.
type GPUProcess struct {
	PID       int    `json:"pid"`
	User      string `json:"user"`
	Name      string `json:"name"`
	MemoryMiB int64  `json:"memory_mib"`
}

// GPUSample is one GPU's telemetry in a heartbeat.
type GPUSample struct {
	UUID           string       `json:"uuid"`
	UtilizationPct int          `json:"utilization_pct"`
	MemoryUsedMiB  int64        `json:"memory_used_mib"`
	TemperatureC   int          `json:"temperature_c"`
	PowerW         int          `json:"power_w"`
	PowerLimitW    int          `json:"power_limit_w"`
	Health         string       `json:"health"`
	HealthReason   string       `json:"health_reason,omitempty"`
	Processes      []GPUProcess `json:"processes,omitempty"`
}

// HeartbeatRequest is the body of POST /api/v1/nodes/{id}/heartbeat.
type HeartbeatRequest struct {
	GPUs []GPUSample `json:"gpus"`
	// Leases are the granted leases whose processes the agent watches and
	// that still run: each is renewed for its TTL (the policy's node_ttl).
	Leases []int64 `json:"leases,omitempty"`
	// MIGLayoutReport says what the agent did of the declared MIG layout
	// and what waits ("gpu 0: applied …; gpu 1: waits: a job runs on it"),
	// sent when it changed; absent: nothing new.
	MIGLayoutReport *string `json:"mig_layout_report,omitempty"`
}

// HeartbeatResponse tells the agent whether it must register again (the
// server does not know some of its GPUs, or forgot the node), and which of
// the leases it named are no longer granted on the node (ended, expired,
// requeued): it stops watching them.
type HeartbeatResponse struct {
	Reregister  bool    `json:"reregister"`
	EndedLeases []int64 `json:"ended_leases,omitempty"`
	// MIGLayout is the MIG layout an admin declared for the node (absent:
	// none; the agent leaves MIG as it is): the agent applies it to its
	// free GPUs, leaving MIGKeep (GPUs a booking holds or starts on soon)
	// and the GPUs its jobs run on as they are until they are free.
	MIGLayout *string `json:"mig_layout,omitempty"`
	MIGKeep   []int   `json:"mig_keep,omitempty"`
}

// MIGLayoutRequest is the body of PUT /api/v1/cluster/nodes/{name}/mig-layout:
// the layout an admin declares ("gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb", x
// for ×), or null to declare none.
type MIGLayoutRequest struct {
	Layout *string `json:"layout"`
}

// MIGLayoutStatus is a node's declared MIG layout (written canonically)
// and what its agent last reported of applying it.
type MIGLayoutStatus struct {
	Node       string     `json:"node"`
	Layout     *string    `json:"layout"`
	Report     string     `json:"report,omitempty"`
	ReportedAt *time.Time `json:"reported_at,omitempty"`
}

// NodeSelf is the answer of GET /api/v1/nodes/self: the calling node
// token's node and the server's clock.
type NodeSelf struct {
	NodeID             int64     `json:"node_id"`
	Name               string    `json:"name"`
	ServerTime         time.Time `json:"server_time"`
	ServerVersion      string    `json:"server_version"`
	HeartbeatIntervalS int       `json:"heartbeat_interval_s"`
	// MIGLayout is the MIG layout an admin declared for the node (absent:
	// none) and MIGLayoutReport what its agent last reported of it.
	MIGLayout       *string `json:"mig_layout,omitempty"`
	MIGLayoutReport string  `json:"mig_layout_report,omitempty"`
}
