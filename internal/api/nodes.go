package api

import "time"

// NodeGPU is one GPU in a node's registration.
type NodeGPU struct {
	Index       int    `json:"index"`
	UUID        string `json:"uuid"`
	Model       string `json:"model"`
	MemoryMiB   int64  `json:"memory_mib"`
	NVLinkGroup *int   `json:"nvlink_group,omitempty"`
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
}

// HeartbeatResponse tells the agent whether it must register again (the
// server does not know some of its GPUs, or forgot the node), and which of
// the leases it named are no longer granted on the node (ended, expired,
// requeued): it stops watching them.
type HeartbeatResponse struct {
	Reregister  bool    `json:"reregister"`
	EndedLeases []int64 `json:"ended_leases,omitempty"`
}

// NodeSelf is the answer of GET /api/v1/nodes/self: the calling node
// token's node and the server's clock.
type NodeSelf struct {
	NodeID             int64     `json:"node_id"`
	Name               string    `json:"name"`
	ServerTime         time.Time `json:"server_time"`
	ServerVersion      string    `json:"server_version"`
	HeartbeatIntervalS int       `json:"heartbeat_interval_s"`
}
