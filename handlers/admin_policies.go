package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// previewRows caps each list of the policy preview.
const previewRows = 100

// AdminPolicies handles GET /admin/policies: the scheduling policy in force.
func (h *Handlers) AdminPolicies(c echo.Context) error {
	cfg, err := models.SchedulerConfig(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.AdminPoliciesPage(h.Page(c, "Policies", "admin"), policiesView(cfg)))
}

// AdminPoliciesSave handles POST /admin/policies: validate the proposed
// policy (a preset, or the JSON), then either preview what a scheduling pass
// would do now under it (action=preview; nothing is stored) or store it,
// audited in the same transaction (action=save).
func (h *Handlers) AdminPoliciesSave(c echo.Context) error {
	ctx := c.Request().Context()
	page := h.Page(c, "Policies", "admin")
	cfg, msg := proposedPolicy(c.FormValue("preset"), c.FormValue("policy"))
	if msg != "" {
		v := policiesView(cfg)
		v.JSON, v.Error = c.FormValue("policy"), msg
		return render(c, http.StatusBadRequest, views.AdminPoliciesPage(page, v))
	}
	v := policiesView(cfg)
	switch c.FormValue("action") {
	case "preview":
		snap, _, err := models.LoadSnapshot(ctx, h.DB.Bun, h.Now(), time.Duration(cfg.FairShare.HalfLife), h.Scoring.Model())
		if err != nil {
			return fmt.Errorf("handlers: policy preview: %w", err)
		}
		v.Preview = preview(snap, scheduler.Schedule(snap, cfg), viewerZone(c))
		return render(c, http.StatusOK, views.AdminPoliciesPage(page, v))
	case "save":
		if err := h.savePolicy(c, cfg); err != nil {
			return err
		}
		v.Saved = true
		return render(c, http.StatusOK, views.AdminPoliciesPage(page, v))
	default:
		v.Error = "Choose Preview or Save."
		return render(c, http.StatusBadRequest, views.AdminPoliciesPage(page, v))
	}
}

// proposedPolicy reads the form's policy: a preset by name, else the JSON
// (unknown fields refused), validated. msg says what is wrong.
func proposedPolicy(preset, raw string) (scheduler.Config, string) {
	if preset != "" {
		p, ok := scheduler.Preset(preset)
		if !ok {
			return scheduler.Config{}, fmt.Sprintf("Unknown preset %q; choose one from the list.", preset)
		}
		return p, ""
	}
	var cfg scheduler.Config
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Sprintf("The policy is not valid JSON for a policy: %v.", err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Sprintf("The policy is not valid: %v.", err)
	}
	return cfg, ""
}

// policiesView is the page for cfg, pretty-printed, with the preset names.
func policiesView(cfg scheduler.Config) views.AdminPolicies {
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return views.AdminPolicies{JSON: string(b), Presets: scheduler.PresetNames()}
}

// preview lists what plan would start and the order of the jobs left waiting.
func preview(snap scheduler.Snapshot, plan scheduler.Plan, loc *time.Location) *views.PolicyPreview {
	jobs := make(map[int64]scheduler.Job, len(snap.Pending))
	for _, j := range snap.Pending {
		jobs[j.ID] = j
	}
	out := &views.PolicyPreview{}
	for i, s := range plan.Starts {
		if i == previewRows {
			break
		}
		note := "starts now"
		if s.Backfilled {
			note = "backfilled"
		}
		out.Starts = append(out.Starts, views.PreviewRow{Position: i + 1, JobID: s.JobID, Name: jobs[s.JobID].Name, GPUs: len(s.GPUIDs), Note: note})
	}
	for i, e := range plan.Pending {
		if i == previewRows {
			break
		}
		row := views.PreviewRow{Position: e.Position, JobID: e.JobID, Name: jobs[e.JobID].Name, GPUs: jobs[e.JobID].GPUCount, Note: e.Reason, ETA: "unknown"}
		if e.Standing != "" { // attained-service policies: "queue 2 of 4: has had 38 GPU-h"
			row.Note += " (" + e.Standing + ")"
		}
		if !e.EstimatedStart.IsZero() {
			row.ETA = localtime.When(e.EstimatedStart, snap.Now, loc) + " (" + localtime.Relative(e.EstimatedStart, snap.Now) + ")"
		}
		out.Waiting = append(out.Waiting, row)
	}
	return out
}
