package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// policyTTL is how long the time-limit policy is reused between reads;
// this replica's policy changes clear it at once.
const policyTTL = 2 * time.Second

// limitCache holds the time-limit policy last read.
type limitCache struct {
	mu  sync.Mutex
	at  time.Time
	val scheduler.TimeLimitPolicy
}

// limitPolicy returns the time-limit policy in force, read at most every
// policyTTL.
func (h *Handlers) limitPolicy(ctx context.Context) (scheduler.TimeLimitPolicy, error) {
	h.limits.mu.Lock()
	defer h.limits.mu.Unlock()
	now := h.Now()
	if !h.limits.at.IsZero() && now.Sub(h.limits.at) < policyTTL && now.After(h.limits.at) {
		return h.limits.val, nil
	}
	cfg, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return scheduler.TimeLimitPolicy{}, fmt.Errorf("handlers: time-limit policy: %w", err)
	}
	h.limits.at, h.limits.val = now, cfg.TimeLimit
	return cfg.TimeLimit, nil
}

// forgetPolicy makes the next submission read the policy again.
func (h *Handlers) forgetPolicy() {
	h.limits.mu.Lock()
	h.limits.at = time.Time{}
	h.limits.mu.Unlock()
}

// applyTimeLimit sets j's time limit from what was asked (0: none) and the
// policy: the policy's default when none is asked, a 400 naming the
// maximum when over it. A lease has no time limit (its TTL bounds it).
func (h *Handlers) applyTimeLimit(ctx context.Context, j *models.Job, asked api.Seconds) error {
	if j.Executor == models.ExecutorLease {
		if asked != 0 {
			return invalid("time_limit", "a lease has no time limit: its TTL bounds it (ttl_s)")
		}
		return nil
	}
	p, err := h.limitPolicy(ctx)
	if err != nil {
		return err
	}
	limit, err := p.Limit(asked.Duration())
	if errors.Is(err, scheduler.ErrOverMaxTimeLimit) {
		return Errorf(http.StatusBadRequest, api.CodeTimeLimitOverMax,
			"time_limit: %s is over the maximum of %s (%d seconds) that the scheduling policy allows (time_limit.max); ask for at most that",
			localtime.Span(asked.Duration()), localtime.Span(time.Duration(p.Max)), int64(time.Duration(p.Max)/time.Second))
	}
	if err != nil {
		return err
	}
	if limit > 0 {
		s := int64(limit / time.Second)
		j.TimeLimitS = &s
	}
	return nil
}
