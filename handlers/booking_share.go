package handlers

import (
	"context"
	"math"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// createShareBooking validates and creates a booking of part of one
// shared GPU (r.GPUShare): of any shared GPU of r.GPUModel, or of the one
// r.GPUIDs names. It counts as its fraction of one GPU against the
// booking limits (so always within max_gpus).
func (h *Handlers) createShareBooking(ctx context.Context, tx *models.Tx, u *models.User, r *api.BookingRequest, lim BookingLimits, now time.Time) (*models.BookingRow, error) {
	switch {
	case math.IsNaN(r.GPUShare) || r.GPUShare <= 0 || r.GPUShare > 1:
		return nil, invalid("gpu_share", "is %g; a share is more than 0 and at most 1 GPU (0.5: half a GPU)", r.GPUShare)
	case r.GPUCount > 1:
		return nil, invalid("gpu_count", "is %d; a share books part of one GPU (leave gpu_count out or give 1)", r.GPUCount)
	case len(r.GPUIDs) > 1:
		return nil, invalid("gpu_ids", "names %d GPUs; a share books part of one shared GPU", len(r.GPUIDs))
	case len(r.GPUIDs) == 1 && r.GPUModel != "":
		return nil, invalid("gpu_model", "give a GPU type or a specific GPU, not both")
	}
	var slots []int64
	if len(r.GPUIDs) == 1 {
		var err error
		if slots, err = models.SharedGPUSlots(ctx, tx, r.GPUIDs[0]); err != nil {
			return nil, bookingError(err, userZone(u))
		}
	}
	whole := *r
	whole.GPUCount, whole.GPUIDs = 1, nil
	b, _, err := bookingFrom(u, &whole, nil, lim, now)
	if err != nil {
		return nil, err
	}
	b.GPUShare = r.GPUShare
	return h.insertBooking(ctx, tx, u, b, slots, lim, now)
}
