package handlers

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// customPreset is the form's choice of no preset: the order keys as set.
const customPreset = "custom"

// presetOf names the preset cfg's order keys match, else custom.
func presetOf(cfg scheduler.Config) string {
	if p := scheduler.MatchPreset(cfg); p != "" {
		return p
	}
	return customPreset
}

// policiesView is the policy page: the presets with preset chosen, the
// form with vals (the stored policy's, or what was typed) and errs beside
// their fields, and cfg as JSON.
func (h *Handlers) policiesView(cfg scheduler.Config, vals, errs map[string]string, preset string) views.AdminPolicies {
	v := views.AdminPolicies{JSON: prettyPolicy(cfg)}
	for _, p := range scheduler.Presets() {
		v.Presets = append(v.Presets, views.PresetChoice{Name: p.Name, Summary: p.Summary, UseWhen: p.UseWhen, Checked: p.Name == preset})
	}
	v.Presets = append(v.Presets, views.PresetChoice{Name: customPreset, Summary: "No preset: the order keys below as you set them.",
		Checked: preset == customPreset})
	defaults := policyValues(scheduler.DefaultConfig())
	for k, d := range h.bookingDefaults() {
		defaults[k] = d
	}
	defaults["idle_action"], defaults["idle_utilization_pct"] = "none", "5"
	for _, sec := range policySections {
		s := views.PolicySection{Title: sec.title, Help: sec.help, Open: sec.open}
		for _, k := range sec.keys {
			f := views.PolicyField{Key: k.key, Label: k.label, Kind: k.kind, Value: vals[k.key], Unit: k.unit, Help: k.help,
				Error: errs[k.key], Options: k.options, Default: defaultText(k, defaults[k.key])}
			if k.kind == keySelect && f.Value == "" && !k.optional && len(k.options) > 0 {
				f.Value = k.options[0].Value
			}
			s.Fields = append(s.Fields, f)
		}
		v.Sections = append(v.Sections, s)
	}
	if n := len(errs); n > 0 {
		var msg []string
		if errs[""] != "" {
			msg, n = append(msg, strings.TrimSpace(errs[""])), n-1
		}
		if errs["preset"] != "" {
			msg, n = append(msg, errs["preset"]), n-1
		}
		if n > 0 {
			msg = append(msg, fmt.Sprintf("%d %s a change; each says what beside it. Nothing was saved.", n, pick(n == 1, "field needs", "fields need")))
		}
		v.Error = strings.Join(msg, " ")
	}
	return v
}

// defaultText says a key's default for people.
func defaultText(k policyKey, def string) string {
	switch {
	case k.kind == keyBool && def != "":
		return "on"
	case k.kind == keyBool:
		return "off"
	case k.kind == keySelect && def == "" && len(k.options) > 0:
		return strings.SplitN(k.options[0].Label, ":", 2)[0]
	case k.kind == keyDuration:
		if d, err := time.ParseDuration(def); err == nil {
			return withDays(d)
		}
	}
	return def
}

// pick returns one when cond holds, else other.
func pick(cond bool, one, other string) string {
	if cond {
		return one
	}
	return other
}
