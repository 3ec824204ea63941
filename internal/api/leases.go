package api

import "time"

// AllocateRequest is the body of POST /api/v1/cluster/gpu-allocate: the
// orchestration design's {job_id, gpu_count, memory_gb} plus what a lease
// needs. The caller runs its own process on the GPUs it gets.
type AllocateRequest struct {
	JobID             string   `json:"job_id,omitempty"` // the caller's own name for the work
	GPUCount          *int     `json:"gpu_count,omitempty"`
	MemoryGB          *float64 `json:"memory_gb,omitempty"`
	GPUModel          string   `json:"gpu_model,omitempty"`
	Priority          Priority `json:"priority,omitempty"`
	EstimatedDuration Seconds  `json:"estimated_duration,omitempty"`
	Name              string   `json:"name,omitempty"`
	AllowMultiNode    bool     `json:"allow_multi_node,omitempty"`
	TimeoutS          *float64 `json:"timeout_s,omitempty"` // how long to block for the GPUs (default 30, 0: don't)
	TTLS              *int64   `json:"ttl_s,omitempty"`     // lease lifetime once granted (default and cap: the policy's)
}

// Allocation answers a granted allocation (200).
type Allocation struct {
	ID                 int64          `json:"id"`
	JobID              string         `json:"job_id,omitempty"`
	State              string         `json:"state"`
	GPUs               []AllocatedGPU `json:"gpus"`
	CUDAVisibleDevices string         `json:"cuda_visible_devices"`
	Node               string         `json:"node,omitempty"`
	LeaseExpiresAt     *time.Time     `json:"lease_expires_at,omitempty"`
}

// AllocationPending answers an allocation still waiting at its timeout
// (202): the job, and where to poll it.
type AllocationPending struct {
	Job
	Poll string `json:"poll"`
}

// AllocatedGPU is one GPU a job holds.
type AllocatedGPU struct {
	Node  string `json:"node"`
	Index int    `json:"index"`
	UUID  string `json:"uuid"`
	Model string `json:"model"`
}

// ReleaseRequest is the body of POST /api/v1/cluster/gpu-release.
type ReleaseRequest struct {
	JobID JobRef `json:"job_id"`
}

// RenewRequest is the body of POST /api/v1/cluster/gpu-renew.
type RenewRequest struct {
	JobID JobRef `json:"job_id"`
	TTLS  *int64 `json:"ttl_s,omitempty"` // at most the policy's cap; nil: the lease's own TTL
}
