package api

import "time"

// BookingRequest is the body of POST /api/v1/bookings: a count of GPUs (of
// a type, or any) or specific GPUs, for a window. gpu_ids names GPUs by
// node and index as pages show them ("sim-node-1:4,5", or a list of such
// names) or by cluster id (GPURefs).
type BookingRequest struct {
	GPUCount int     `json:"gpu_count,omitempty"`
	GPUModel string  `json:"gpu_model,omitempty"`
	GPUIDs   GPURefs `json:"gpu_ids,omitempty"`
	// GPUShare, above 0 and at most 1, books that fraction of one shared
	// GPU (gpu_count then 1 or left out): of any shared GPU of gpu_model,
	// or of the one shared GPU gpu_ids names ("sim-node-1:2").
	GPUShare float64   `json:"gpu_share,omitempty"`
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at"`
	Note     string    `json:"note,omitempty"`
}

// Booking is a calendar booking (kind "booking") or an agent's pre-warm
// hold (kind "hold").
type Booking struct {
	ID       int64  `json:"id"`
	Kind     string `json:"kind"`
	User     string `json:"user"`
	GPUCount int    `json:"gpu_count"`
	GPUModel string `json:"gpu_model,omitempty"`
	// GPUShare is the fraction of one shared GPU it books; 0: whole GPUs.
	GPUShare float64 `json:"gpu_share,omitempty"`
	GPUIDs   []int64 `json:"gpu_ids,omitempty"`
	// GPUNames are the named GPUs as node:index ("sim-node-1:4"), in the
	// order of GPUIDs.
	GPUNames  []string  `json:"gpu_names,omitempty"`
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	Note      string    `json:"note,omitempty"`
	State     string    `json:"state"` // upcoming, active, ended, canceled
	CreatedAt time.Time `json:"created_at"`
	// Edits and series.
	SeriesID  *int64    `json:"series_id,omitempty"`
	Sequence  int       `json:"sequence"`
	UpdatedAt time.Time `json:"updated_at"`
}

// BookingPatch is the body of PATCH /api/v1/bookings/{id}: the fields to
// change; absent fields keep their value. gpu_ids names GPUs instead of a
// count (an empty list goes back to a count), as BookingRequest's does.
type BookingPatch struct {
	StartsAt *time.Time `json:"starts_at,omitempty"`
	EndsAt   *time.Time `json:"ends_at,omitempty"`
	GPUCount *int       `json:"gpu_count,omitempty"`
	GPUIDs   *GPURefs   `json:"gpu_ids,omitempty"`
	Note     *string    `json:"note,omitempty"`
}
