package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// AdminPolicies handles GET /admin/policies: the scheduling policy in
// force, as a form, with the presets explained and the JSON for experts.
func (h *Handlers) AdminPolicies(c echo.Context) error {
	cfg, err := models.SchedulerConfig(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.AdminPoliciesPage(h.Page(c, "Policies", "admin"), h.policiesView(cfg, policyValues(cfg), nil, presetOf(cfg))))
}

// AdminPoliciesSave handles POST /admin/policies: read the proposed policy
// (the form, editor=form; the JSON, editor=json; or a bare preset), check
// it, then either preview what a scheduling pass would do now under it
// (action=preview; nothing is stored) or store it, audited in the same
// transaction (action=save). A refused form comes back as typed, each
// problem beside its field.
func (h *Handlers) AdminPoliciesSave(c echo.Context) error {
	ctx := c.Request().Context()
	page := h.Page(c, "Policies", "admin")
	cur, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	var v views.AdminPolicies
	var cfg scheduler.Config
	switch editor := c.FormValue("editor"); {
	case editor == "form":
		vals := formPolicyValues(c)
		preset := c.FormValue("preset")
		var errs map[string]string
		if cfg, errs = proposedForm(cur, vals, preset); len(errs) > 0 {
			v = h.policiesView(cur, vals, errs, preset)
			return render(c, http.StatusBadRequest, views.AdminPoliciesPage(page, v))
		}
		v = h.policiesView(cfg, policyValues(cfg), nil, preset)
	default: // the JSON editor, or a preset alone
		var msg string
		if cfg, msg = proposedPolicy(c.FormValue("preset"), c.FormValue("policy")); msg != "" {
			v = h.policiesView(cur, policyValues(cur), nil, presetOf(cur))
			v.JSON, v.JSONError, v.JSONOpen = c.FormValue("policy"), msg, true
			if c.FormValue("policy") == "" {
				v.JSON, v.JSONOpen, v.JSONError, v.Error = prettyPolicy(cur), false, "", msg
			}
			return render(c, http.StatusBadRequest, views.AdminPoliciesPage(page, v))
		}
		v = h.policiesView(cfg, policyValues(cfg), nil, presetOf(cfg))
		v.JSONOpen = editor == "json"
	}
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

// formPolicyValues are the form's texts by key (a ticked box: "true").
func formPolicyValues(c echo.Context) map[string]string {
	out := map[string]string{}
	for _, sec := range policySections {
		for _, k := range sec.keys {
			out[k.key] = c.FormValue(k.key)
		}
	}
	return out
}

// proposedForm reads the form over cur: the fields, then the preset's
// order keys unless the preset is custom, then Validate. errs holds each
// problem by key ("" for one about no field).
func proposedForm(cur scheduler.Config, vals map[string]string, preset string) (scheduler.Config, map[string]string) {
	cfg, errs := policyFromValues(cur, vals)
	if len(errs) > 0 {
		return cfg, errs
	}
	if preset != customPreset {
		var ok bool
		if cfg, ok = scheduler.ApplyPreset(preset, cfg); !ok {
			return cfg, map[string]string{"preset": "Choose a preset, or Custom."}
		}
	}
	fields, rest := scheduler.FieldErrors(cfg.Validate())
	if len(fields)+len(rest) == 0 {
		return cfg, nil
	}
	errs = map[string]string{}
	for _, f := range fields {
		errs[f.Key] = f.Msg
	}
	for _, e := range rest {
		errs[""] += e.Error() + ". "
	}
	return cfg, errs
}

// proposedPolicy reads a preset by name, else the JSON (unknown fields
// refused), validated. msg says what is wrong.
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

// prettyPolicy is cfg as the JSON editor shows it.
func prettyPolicy(cfg scheduler.Config) string {
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return string(b)
}
