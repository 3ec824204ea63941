package api

import "time"

// HoldRequirements narrows the GPUs a hold keeps free.
type HoldRequirements struct {
	GPUCount    int     `json:"gpu_count,omitempty" yaml:"gpu_count"`
	GPUModel    string  `json:"gpu_model,omitempty" yaml:"gpu_model"`
	MinMemoryGB float64 `json:"min_memory_gb,omitempty" yaml:"min_memory_gb"`
}

// HoldRequest is the body of POST /api/gpuscheduler/v1/allocate (the client
// agent design's allocate call) and of POST /api/v1/holds: the agent's
// allocation defaults and the name of the monitor that fired. Nothing else.
type HoldRequest struct {
	Monitor      string            `json:"monitor,omitempty"`
	UserRegion   string            `json:"user_region,omitempty"`
	JobType      string            `json:"job_type,omitempty"`
	GPUCount     int               `json:"gpu_count,omitempty"`
	GPUModel     string            `json:"gpu_model,omitempty"`
	Requirements *HoldRequirements `json:"requirements,omitempty"`
	// TTLS asks for a shorter hold than the server's TTL (seconds).
	TTLS int64 `json:"ttl_s,omitempty"`
}

// Hold is a pre-warm hold as the API shows it.
type Hold struct {
	ID            int64      `json:"id"`
	State         string     `json:"state"` // active, consumed, expired, canceled
	User          string     `json:"user"`
	GPUCount      int        `json:"gpu_count"`
	GPUModel      string     `json:"gpu_model,omitempty"`
	MinMemoryGB   float64    `json:"min_memory_gb,omitempty"`
	JobType       string     `json:"job_type,omitempty"`
	Monitor       string     `json:"monitor,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	ExpiresAt     time.Time  `json:"expires_at"`
	ConsumedAt    *time.Time `json:"consumed_at,omitempty"`
	ConsumedByJob *int64     `json:"consumed_by_job,omitempty"`
	CanceledAt    *time.Time `json:"canceled_at,omitempty"`
}

// Holds is the body of GET /api/v1/holds.
type Holds struct {
	Holds []Hold `json:"holds"`
}

// HoldStat is one user's line of GET /api/v1/holds/stats (admins).
type HoldStat struct {
	UserID    int64   `json:"user_id"`
	Email     string  `json:"email"`
	Total     int     `json:"total"`
	Active    int     `json:"active"`
	Consumed  int     `json:"consumed"`
	Expired   int     `json:"expired"`
	Canceled  int     `json:"canceled"`
	HitRate   float64 `json:"hit_rate"`
	HeldIdleS float64 `json:"held_idle_s"`
}

// HoldStats is the body of GET /api/v1/holds/stats.
type HoldStats struct {
	Since time.Time  `json:"since"`
	Users []HoldStat `json:"users"`
}

// AllocatePath is the client agent design's allocate route.
const AllocatePath = "/api/gpuscheduler/v1/allocate"
