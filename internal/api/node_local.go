package api

import "time"

// The node agent's local API (the local scheduler document: POST /acquire,
// GET /jobs, GET /status on the agent's loopback port) is a contract of its
// own between `gpusched run` (or any local process) and `gpusched node`;
// its types live here beside the server's so both sides read one
// definition.

// Statuses of a local lease as GET /jobs shows them.
const (
	LocalQueued   = "queued"
	LocalRunning  = "running"
	LocalDone     = "done"
	LocalCanceled = "canceled"
)

// AcquireRequest is the body of POST /acquire: the local-scheduler
// document's {pid, num_gpus}, plus what `gpusched run` may add. Time and
// Priority take the forms of the server's API ("2h" or seconds; 1–4 or a
// name).
type AcquireRequest struct {
	PID      *int     `json:"pid"`
	NumGPUs  *int     `json:"num_gpus"`
	GPUType  string   `json:"gpu_type,omitempty"`
	MemGB    *float64 `json:"mem_gb,omitempty"`
	Time     string   `json:"time,omitempty"`
	Name     string   `json:"name,omitempty"`
	Priority string   `json:"priority,omitempty"`
}

// AcquireGrant is the answer of POST /acquire once the GPUs are granted:
// the lease's job id and the CUDA_VISIBLE_DEVICES value. A refusal is an
// Error body.
type AcquireGrant struct {
	JobID string `json:"job_id"`
	GPUs  string `json:"gpus"`
}

// LocalLease is one /acquire as GET /jobs shows it: a local process
// waiting for, or holding, GPUs of the node. It is a lease job in the
// control plane.
type LocalLease struct {
	ID        string     `json:"id"`
	Status    string     `json:"status"`
	GPUs      string     `json:"gpus"`
	PID       int        `json:"pid"`
	NumGPUs   int        `json:"num_gpus"`
	Owner     string     `json:"owner"`    // Unix user of the process
	User      string     `json:"user"`     // the scheduler user it maps to
	Position  *int       `json:"position"` // in the cluster's queue, while queued
	Reason    string     `json:"reason"`   // why it waits
	ETA       *time.Time `json:"eta"`      // expected start
	Submitted time.Time  `json:"submitted_at"`
	Ended     *time.Time `json:"ended_at,omitempty"`
}
