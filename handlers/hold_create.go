package handlers

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Hold defaults when the configuration leaves them out.
const (
	defaultHoldTTL   = 15 * time.Minute
	defaultHoldLimit = 2
)

// HoldCreate handles POST /api/v1/holds and its alias POST
// /api/gpuscheduler/v1/allocate (the client agent's call): it keeps matching
// GPUs free for the caller for a TTL, so that their next matching job
// starts on them at once, and answers 202 with the hold. Holds obey the
// per-user limit and the GPU caps; Idempotency-Key makes retries safe.
func (h *Handlers) HoldCreate(c echo.Context) error {
	u := userOf(c)
	var b api.HoldRequest
	body, err := readJSON(c, &b)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cp, err := h.capacity(ctx)
	if err != nil {
		return err
	}
	hold, err := h.holdFrom(u, &b, cp)
	if err != nil {
		return err
	}
	var status int
	var out any
	err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		status, out, err = idempotent(c, tx, body, func(ctx context.Context) (int, any, error) {
			now := h.Now()
			if err := models.CreateHold(ctx, tx, hold, h.holdLimit(), now); err != nil {
				return 0, nil, holdError(err)
			}
			return http.StatusAccepted, holdJSON(hold, u.Email, now), nil
		})
		return err
	})
	if err != nil {
		return err
	}
	if status == http.StatusAccepted {
		h.log(c).Info("hold created", "user", u.Email, "gpus", hold.GPUCount, "monitor", hold.Source)
	}
	return c.JSON(status, out)
}

// holdFrom validates a hold request against the cluster and the TTL.
func (h *Handlers) holdFrom(u *models.User, b *api.HoldRequest, cp models.Capacity) (*models.Hold, error) {
	n, model, mem := b.GPUCount, strings.TrimSpace(b.GPUModel), 0.0
	if n < 0 {
		return nil, invalid("gpu_count", "must be positive, not %d", n)
	}
	if r := b.Requirements; r != nil {
		if r.GPUCount != 0 {
			n = r.GPUCount
		}
		if strings.TrimSpace(r.GPUModel) != "" {
			model = strings.TrimSpace(r.GPUModel)
		}
		mem = r.MinMemoryGB
	}
	if n == 0 {
		n = 1
	}
	var gb *float64
	if mem != 0 {
		gb = &mem
	}
	spec := api.SubmitRequest{GPUCount: &n, GPUModel: model, MemoryGB: gb, Executor: models.ExecutorLease}
	j, err := jobFrom(&spec, u, cp, func(string) bool { return true })
	if err != nil {
		return nil, err
	}
	ttl := h.holdTTL()
	if b.TTLS < 0 || time.Duration(b.TTLS)*time.Second > ttl {
		return nil, invalid("ttl_s", "must be 1–%d seconds (the server's hold TTL)", int64(ttl.Seconds()))
	}
	if b.TTLS > 0 {
		ttl = time.Duration(b.TTLS) * time.Second
	}
	switch {
	case len(b.Monitor) > 200 || len(b.JobType) > 200 || len(b.UserRegion) > 200:
		return nil, invalid("monitor", "monitor, job_type and user_region are at most 200 characters")
	case math.IsNaN(mem) || math.IsInf(mem, 0):
		return nil, invalid("requirements.min_memory_gb", "must be a number")
	}
	hold := &models.Hold{UserID: u.ID, GPUCount: j.GPUCount, GPUModel: j.GPUModel, MinMemoryMiB: j.GPUMemoryMiB,
		JobType: strings.TrimSpace(b.JobType), Source: strings.TrimSpace(b.Monitor)}
	if b.UserRegion != "" {
		hold.Note = "region " + strings.TrimSpace(b.UserRegion)
	}
	hold.EndsAt = h.Now().Add(ttl)
	return hold, nil
}

func (h *Handlers) holdTTL() time.Duration {
	if h.Config.HoldTTL > 0 {
		return h.Config.HoldTTL
	}
	return defaultHoldTTL
}

func (h *Handlers) holdLimit() int {
	if h.Config.HoldLimit > 0 {
		return h.Config.HoldLimit
	}
	return defaultHoldLimit
}

// holdError maps the model's refusals to API errors.
func holdError(err error) error {
	switch {
	case errors.Is(err, models.ErrHoldLimit):
		return &APIError{Status: http.StatusConflict, Code: api.CodeHoldLimit, Err: err,
			Message: "you already have as many live holds as allowed; cancel one (DELETE /api/v1/holds/{id}) or wait for it to end"}
	case errors.Is(err, models.ErrHoldQuota):
		_, msg, _ := strings.Cut(err.Error(), ": ")
		return &APIError{Status: http.StatusConflict, Code: api.CodeQuotaExceeded, Err: err, Message: "a hold counts against your GPU cap: " + msg}
	}
	return err
}
