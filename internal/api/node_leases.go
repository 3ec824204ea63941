package api

import "time"

// NodeLeaseRequest is the body of POST /api/v1/nodes/{id}/leases: a local
// process on the node asks for GPUs of that node (the local /acquire).
type NodeLeaseRequest struct {
	PID int `json:"pid"`
	// PIDStart is the process's start time in clock ticks since boot
	// (field 22 of /proc/PID/stat): with the PID it names the process
	// across PID reuse. An agent that sends it renews the lease while the
	// process lives (the policy's node_ttl); without it the lease gets the
	// default TTL.
	PIDStart uint64   `json:"pid_start,omitempty"`
	UnixUser string   `json:"unix_user"` // owner of the process; mapped to a scheduler user
	GPUCount int      `json:"gpu_count"`
	GPUModel string   `json:"gpu_model,omitempty"`
	MemoryGB *float64 `json:"memory_gb,omitempty"`
	Duration Seconds  `json:"estimated_duration,omitempty"`
	Name     string   `json:"name,omitempty"`
	Priority Priority `json:"priority,omitempty"`
}

// NodeLease is a local lease's state: its GPUs once granted, else its place
// in the queue.
type NodeLease struct {
	JobID int64  `json:"job_id"`
	State string `json:"state"`
	Owner string `json:"owner"`
	GPUs  []int  `json:"gpus"`
	// GPUUUIDs are the UUIDs of GPUs, in the same order: MIG devices
	// share their parent's index and are named by UUID.
	GPUUUIDs       []string   `json:"gpu_uuids,omitempty"`
	Position       *int       `json:"position,omitempty"`
	Reason         string     `json:"reason,omitempty"`
	EstimatedStart *time.Time `json:"estimated_start,omitempty"`
	// The process that holds the lease (PIDStart 0: its start time is
	// unknown), whether its client learned of the grant, and when it runs
	// out unless renewed.
	PID       int        `json:"pid,omitempty"`
	PIDStart  uint64     `json:"pid_start,omitempty"`
	Confirmed bool       `json:"confirmed"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}
