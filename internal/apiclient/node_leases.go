package apiclient

import (
	"context"
	"fmt"
	"time"
)

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
	Duration string   `json:"estimated_duration,omitempty"` // "2h"
	Name     string   `json:"name,omitempty"`
	Priority string   `json:"priority,omitempty"`
}

// NodeLease is a local lease's state: its GPUs once granted, else its place
// in the queue.
type NodeLease struct {
	JobID          int64      `json:"job_id"`
	State          string     `json:"state"`
	Owner          string     `json:"owner"`
	GPUs           []int      `json:"gpus"`
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

// CreateLease queues a lease pinned to node id.
func (c *Client) CreateLease(ctx context.Context, id int64, req NodeLeaseRequest) (*NodeLease, error) {
	var out NodeLease
	if err := c.Do(ctx, "POST", fmt.Sprintf("/api/v1/nodes/%d/leases", id), req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// WaitLease returns lease job's state once it differs from state, or after wait.
func (c *Client) WaitLease(ctx context.Context, id, job int64, state string, wait time.Duration) (*NodeLease, error) {
	var out NodeLease
	path := fmt.Sprintf("/api/v1/nodes/%d/leases/%d?wait=%d&state=%s", id, job, int(wait.Seconds()), state)
	if err := c.Do(ctx, "GET", path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EndLease ends lease job (withdraws it while it waits).
func (c *Client) EndLease(ctx context.Context, id, job int64, reason string) error {
	return c.Do(ctx, "DELETE", fmt.Sprintf("/api/v1/nodes/%d/leases/%d?reason=%s", id, job, queryEscape(reason)), nil, nil)
}

// ListLeases returns node id's live leases (waiting or granted), oldest
// first: what an agent that starts finds to adopt or end.
func (c *Client) ListLeases(ctx context.Context, id int64) ([]NodeLease, error) {
	var out []NodeLease
	if err := c.Do(ctx, "GET", fmt.Sprintf("/api/v1/nodes/%d/leases", id), nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}
