package handlers

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// JobIdleJSON is a job's standing under the idle policy.
type JobIdleJSON struct {
	JobID       int64      `json:"job_id"`
	IdleOK      bool       `json:"idle_ok"`
	IdleOKHonor bool       `json:"idle_ok_honoured"`
	IdleSince   *time.Time `json:"idle_since,omitempty"`
	WarnedAt    *time.Time `json:"warned_at,omitempty"`
	ReclaimAt   *time.Time `json:"reclaim_at,omitempty"`
	ReclaimedAt *time.Time `json:"reclaimed_at,omitempty"`
}

// JobIdle handles GET /api/v1/jobs/{id}/idle: the job's idle state and,
// when warned under a release policy, when it will be given back.
func (h *Handlers) JobIdle(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return invalid("id", "must be a job id, got %q", c.Param("id"))
	}
	ctx := c.Request().Context()
	if _, err := ownJob(ctx, h.DB.Bun, userOf(c), id); err != nil {
		return err
	}
	out, err := h.jobIdle(c, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// JobIdleOK handles PUT /api/v1/jobs/{id}/idle: {"idle_ok": true} opts the
// job out of the idle policy; 409 when the policy does not allow opting out.
func (h *Handlers) JobIdleOK(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return invalid("id", "must be a job id, got %q", c.Param("id"))
	}
	var b struct {
		IdleOK bool `json:"idle_ok"`
	}
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := ownJob(ctx, h.DB.Bun, userOf(c), id); err != nil {
		return err
	}
	cfg, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	if b.IdleOK && !cfg.IdleOKAllowed {
		return Errorf(http.StatusConflict, api.CodeIdleOKForbidden, "idle_ok: the idle policy does not let jobs opt out; ask an admin")
	}
	if err := models.SetIdleOK(ctx, h.DB.Bun, id, b.IdleOK); err != nil {
		return err
	}
	out, err := h.jobIdle(c, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

func (h *Handlers) jobIdle(c echo.Context, id int64) (JobIdleJSON, error) {
	ctx := c.Request().Context()
	ji, err := models.GetJobIdle(ctx, h.DB.Bun, id)
	if err != nil {
		return JobIdleJSON{}, err
	}
	cfg, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return JobIdleJSON{}, err
	}
	out := JobIdleJSON{JobID: id, IdleOK: ji.IdleOK, IdleOKHonor: ji.IdleOK && cfg.IdleOKAllowed, IdleSince: ji.IdleSince,
		WarnedAt: ji.WarnedAt, ReclaimedAt: ji.ReclaimedAt}
	if ji.WarnedAt != nil && ji.ReclaimedAt == nil && cfg.IdleAction == "release" {
		at := ji.WarnedAt.Add(time.Duration(cfg.IdleGrace)).UTC()
		out.ReclaimAt = &at
	}
	return out, nil
}

// jobIdleView fills the job page's idle warning and countdown.
func (h *Handlers) jobIdleView(c echo.Context, d *views.JobDetail) error {
	ji, err := models.GetJobIdle(c.Request().Context(), h.DB.Bun, d.ID)
	if err != nil || ji.WarnedAt == nil || ji.IdleSince == nil {
		return err
	}
	out, err := h.jobIdle(c, d.ID)
	if err != nil {
		return err
	}
	d.IdleSince = *ji.IdleSince
	if out.ReclaimAt != nil {
		d.ReclaimAt = *out.ReclaimAt
	}
	return nil
}

// withReclaims marks the tiles of jobs the idle policy warned: idle, and
// when their GPUs will be given back (a constant one or two queries).
func (h *Handlers) withReclaims(ctx context.Context, v *views.Cluster) error {
	at, err := models.ReclaimTimes(ctx, h.DB.Bun)
	if err != nil || len(at) == 0 {
		return err
	}
	for i := range v.Nodes {
		for k := range v.Nodes[i].GPUs {
			g := &v.Nodes[i].GPUs[k]
			if t, ok := at[g.JobID]; ok && g.JobID != 0 {
				if g.IdleSince.IsZero() {
					g.IdleSince = t[0]
				}
				g.ReclaimAt = t[1]
			}
		}
	}
	return nil
}
