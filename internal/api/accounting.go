package api

import "time"

// Accounting is the body of GET /api/v1/accounting: GPU time per user or
// team over a month, an ISO week or a given range, and its cost at the
// policy's rates (cost_rates, currency).
type Accounting struct {
	// Period is "2026-11", "2026-W48", or "" for a range given by from and to.
	Period   string    `json:"period,omitempty"`
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	TimeZone string    `json:"time_zone"` // the zone the period's days are in
	By       string    `json:"by"`        // user or team
	Currency string    `json:"currency,omitempty"`
	// Rates are the policy's prices per GPU-hour, by the part of a GPU
	// model's name they match.
	Rates map[string]float64 `json:"rates"`
	Rows  []AccountingRow    `json:"rows"`
	Total AccountingRow      `json:"total"`
	// UnpricedModels are GPU models used that no rate prices (they cost 0).
	UnpricedModels []string `json:"unpriced_models,omitempty"`
}

// AccountingRow is one user's or team's GPU time over the period.
type AccountingRow struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"` // by user
	Team  string `json:"team,omitempty"`  // by user: their team
	// GPUHours is GPU time used (as the usage page counts it);
	// BookedIdleGPUHours booked GPUs not in use (unheld, or idle as the
	// usage page counts idle); ReclaimedGPUHours idle GPU time the idle
	// policy ended; Cost GPUHours priced per model.
	GPUHours           float64              `json:"gpu_hours"`
	BookedIdleGPUHours float64              `json:"booked_idle_gpu_hours"`
	ReclaimedGPUHours  float64              `json:"reclaimed_gpu_hours"`
	Cost               float64              `json:"cost"`
	Models             []AccountingModelUse `json:"models,omitempty"`
}

// AccountingModelUse is GPU time on one GPU model and its price.
type AccountingModelUse struct {
	Model    string   `json:"model"`
	GPUHours float64  `json:"gpu_hours"`
	Rate     *float64 `json:"rate,omitempty"` // absent: no rate prices it
	Cost     float64  `json:"cost"`
}
