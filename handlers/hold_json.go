package handlers

import (
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// holdJSON is a hold as the API shows it, in its state at now.
func holdJSON(h *models.Hold, email string, now time.Time) api.Hold {
	out := api.Hold{ID: h.ID, State: h.State(now), User: email, GPUCount: h.GPUCount, GPUModel: h.GPUModel,
		JobType: h.JobType, Monitor: h.Source, CreatedAt: h.CreatedAt, ExpiresAt: h.EndsAt,
		ConsumedAt: h.ConsumedAt, ConsumedByJob: h.ConsumedByJob, CanceledAt: h.CanceledAt}
	if out.CreatedAt.IsZero() {
		out.CreatedAt = h.StartsAt
	}
	if h.MinMemoryMiB != nil {
		out.MinMemoryGB = float64(*h.MinMemoryMiB) / 1024
	}
	return out
}
