package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// OrchestratorStatusJSON is the body of GET /orchestrator/status.
type OrchestratorStatusJSON struct {
	Running  bool             `json:"running"` // false while an admin paused scheduling
	Policy   scheduler.Config `json:"policy"`
	LastPass models.PassStats `json:"last_pass"`
	Queued   int              `json:"queued"`
	Active   int              `json:"active"`
	GPUs     int              `json:"gpus"`
	GPUsUsed int              `json:"gpus_allocated"`
	// Ray is the Ray cluster's connection, when one is configured.
	Ray *models.RayCluster `json:"ray,omitempty"`
}

// OrchestratorStatus handles GET /api/v1/orchestrator/status.
func (h *Handlers) OrchestratorStatus(c echo.Context) error {
	ctx := c.Request().Context()
	paused, err := models.SchedulingPaused(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	cfg, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	last, err := models.LastPass(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	st, err := models.QueueStatistics(ctx, h.DB.Bun, h.Now(), 24*time.Hour)
	if err != nil {
		return err
	}
	out := OrchestratorStatusJSON{Running: !paused, Policy: cfg, LastPass: last,
		Queued: st.Queued, Active: st.Running, GPUs: st.GPUsTotal, GPUsUsed: st.GPUsAllocated}
	if rc, err := models.GetRayCluster(ctx, h.DB.Bun); err == nil {
		out.Ray = rc
	} else if !errors.Is(err, models.ErrNotFound) {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// OrchestratorStart handles POST /api/v1/orchestrator/start (admins):
// resume scheduling.
func (h *Handlers) OrchestratorStart(c echo.Context) error { return h.setPaused(c, false) }

// OrchestratorStop handles POST /api/v1/orchestrator/stop (admins): pause
// scheduling; running jobs keep running, nothing new starts.
func (h *Handlers) OrchestratorStop(c echo.Context) error { return h.setPaused(c, true) }

func (h *Handlers) setPaused(c echo.Context, paused bool) error {
	u := userOf(c)
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		if err := models.SetSchedulingPaused(ctx, tx, paused, &u.ID, h.Now()); err != nil {
			return err
		}
		action := map[bool]string{true: "orchestrator.stop", false: "orchestrator.start"}[paused]
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: action, TargetType: "scheduler", RemoteAddr: c.RealIP()})
	})
	if err != nil {
		return fmt.Errorf("handlers: pause=%t: %w", paused, err)
	}
	return h.OrchestratorStatus(c)
}

// OrchestratorPolicies handles GET /api/v1/orchestrator/policies: the
// policy in force and the named presets.
func (h *Handlers) OrchestratorPolicies(c echo.Context) error {
	cfg, err := models.SchedulerConfig(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return err
	}
	presets := map[string]scheduler.Config{}
	for _, name := range scheduler.PresetNames() {
		p, _ := scheduler.Preset(name)
		presets[name] = p
	}
	return c.JSON(http.StatusOK, map[string]any{"policy": cfg, "presets": presets})
}

// policyBody is the body of PUT /orchestrator/policies: a whole policy, or
// {"preset": "name"}.
type policyBody struct {
	scheduler.Config
	Preset string `json:"preset"`
}

// OrchestratorPutPolicies handles PUT /api/v1/orchestrator/policies
// (admins): validate, store, audit; the next pass applies it.
func (h *Handlers) OrchestratorPutPolicies(c echo.Context) error {
	var b policyBody
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	cfg := b.Config
	if b.Preset != "" {
		p, ok := scheduler.Preset(b.Preset)
		if !ok {
			return invalid("preset", "unknown preset %q; choose from %v", b.Preset, scheduler.PresetNames())
		}
		cfg = p
	}
	if err := cfg.Validate(); err != nil {
		return Errorf(http.StatusBadRequest, api.CodeInvalidPolicy, "%s", errors.Join(err))
	}
	if err := h.savePolicy(c, cfg); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"policy": cfg})
}

// savePolicy puts cfg in force on behalf of the signed-in admin, audited
// (old and new) in the same transaction.
func (h *Handlers) savePolicy(c echo.Context, cfg scheduler.Config) error {
	u := userOf(c)
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		old, err := models.SchedulerConfig(ctx, tx)
		if err != nil {
			return err
		}
		if err := models.PutSchedulerConfig(ctx, tx, cfg, &u.ID, h.Now()); err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "orchestrator.policies", TargetType: "scheduler",
			Details: map[string]any{"from": old, "to": cfg}, RemoteAddr: c.RealIP()})
	})
	if err != nil {
		return fmt.Errorf("handlers: save policies: %w", err)
	}
	h.forgetPolicy()
	return nil
}
