package handlers

import (
	"context"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// capacityTTL is how long the cluster's capacity (models and sizes of its
// GPUs, for validating requests) is reused; GPUs come and go far slower.
const capacityTTL = 2 * time.Second

// capacityCache holds the latest capacity read.
type capacityCache struct {
	mu  sync.Mutex
	at  time.Time
	val models.Capacity
}

// capacity returns the cluster's capacity, read at most every capacityTTL.
func (h *Handlers) capacity(ctx context.Context) (models.Capacity, error) {
	h.capCache.mu.Lock()
	defer h.capCache.mu.Unlock()
	now := h.Now()
	if !h.capCache.at.IsZero() && now.Sub(h.capCache.at) < capacityTTL && now.After(h.capCache.at) {
		return h.capCache.val, nil
	}
	c, err := models.ClusterCapacity(ctx, h.DB.Bun)
	if err != nil {
		return c, err
	}
	h.capCache.at, h.capCache.val = now, c
	return c, nil
}
