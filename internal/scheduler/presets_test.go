package scheduler

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPresets checks the named configurations.
func TestPresets(t *testing.T) {
	t.Parallel()
	want := []string{"default", "fairshare", "fairshare-backfill", "fairshare-entitled", "fcfs", "gittins-backfill", "las", "las-backfill",
		"las-learned", "priority", "priority-backfill", "sjf", "sjf-backfill"}
	if d := cmp.Diff(want, PresetNames()); d != "" {
		t.Errorf("PresetNames (-want +got):\n%s", d)
	}
	type knobs struct {
		Policy               string
		Backfill, Preemption bool
		Aging                float64
	}
	wantKnobs := map[string]knobs{
		"default":            {PolicyLAS, true, true, 0.25},
		"fairshare":          {PolicyFairShare, false, true, 0.25},
		"fairshare-backfill": {PolicyFairShare, true, true, 0.25},
		"fcfs":               {PolicyFCFS, false, false, 0},
		"priority":           {PolicyPriority, false, true, 0.25},
		"priority-backfill":  {PolicyPriority, true, true, 0.25},
		"sjf":                {PolicySJF, false, false, 0.25},
		"sjf-backfill":       {PolicySJF, true, false, 0.25},
		"fairshare-entitled": {PolicyFairShare, true, true, 0.25},
		"las":                {PolicyLAS, false, true, 0.25},
		"las-backfill":       {PolicyLAS, true, true, 0.25},
		"las-learned":        {PolicyLAS, true, true, 0.25},
		"gittins-backfill":   {PolicyGittins, true, true, 0.25},
	}
	for _, name := range want {
		c, ok := Preset(name)
		if !ok || c.Validate() != nil {
			t.Fatalf("Preset(%q) = %+v, %v; Validate: %v", name, c, ok, c.Validate())
		}
		if d := cmp.Diff(wantKnobs[name], knobs{c.Policy, c.Backfill, c.Preemption, c.AgingPerHour}); d != "" {
			t.Errorf("Preset(%q) (-want +got):\n%s", name, d)
		}
	}
	if c, _ := Preset(" Default "); !cmp.Equal(c, DefaultConfig()) {
		t.Errorf("Preset(default) = %+v, want DefaultConfig()", c)
	}
	if _, ok := Preset("lottery"); ok {
		t.Error("Preset(lottery) exists")
	}
}

// TestPresetsAtScale runs every preset on generated snapshots of the team's
// cluster and of a larger one, and checks the plans' invariants.
func TestPresetsAtScale(t *testing.T) {
	t.Parallel()
	sizes := map[string]genOpts{
		"16 GPUs":  {nodes: 2, perNode: 8, busy: 0.5, pending: 300, users: 15, teams: 3, bookings: true, seed: 3},
		"128 GPUs": {nodes: 16, perNode: 8, busy: 0.4, pending: 600, users: 40, teams: 5, bookings: true, seed: 4},
	}
	for size, o := range sizes {
		for _, name := range PresetNames() {
			t.Run(size+"/"+name, func(t *testing.T) {
				t.Parallel()
				s := genSnapshot(o)
				c, _ := Preset(name)
				pl := Schedule(s, c)
				checkPlan(t, s, c, pl)
				if len(pl.Starts) == 0 {
					t.Error("nothing starts on a cluster with free GPUs")
				}
			})
		}
	}
}

// Every preset is explained, once; the explained ones are the presets;
// MatchPreset finds a preset's order again and ApplyPreset keeps the rest.
func TestPresetInfo(t *testing.T) {
	t.Parallel()
	var names []string
	for _, p := range Presets() {
		if p.Summary == "" || p.UseWhen == "" {
			t.Errorf("preset %s is not explained: %+v", p.Name, p)
		}
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if d := cmp.Diff(PresetNames(), names); d != "" {
		t.Errorf("explained presets (-names +explained):\n%s", d)
	}
	for _, name := range PresetNames() {
		c, _ := Preset(name)
		got, _ := Preset(MatchPreset(c))
		if orderOf(got) != orderOf(c) {
			t.Errorf("MatchPreset(%s) = %s, whose order keys differ", name, MatchPreset(c))
		}
	}
	custom := DefaultConfig()
	custom.Policy, custom.Backfill = PolicySJF, true
	custom.Preemption = true // sjf presets never preempt
	if m := MatchPreset(custom); m != "" {
		t.Errorf("MatchPreset(sjf with preemption) = %q, want none", m)
	}
	mine := DefaultConfig()
	mine.IdleAction, mine.IdleAfter, mine.BookingLimits.MaxLive = IdleWarn, Duration(time.Hour), 9
	got, ok := ApplyPreset("fcfs", mine)
	want := mine
	want.Policy, want.Backfill, want.Preemption = PolicyFCFS, false, false
	if !ok || !cmp.Equal(got, want) {
		t.Errorf("ApplyPreset(fcfs) (-want +got):\n%s", cmp.Diff(want, got))
	}
	if _, ok := ApplyPreset("lottery", mine); ok {
		t.Error("ApplyPreset(lottery) applied")
	}
}

// Validate ties each problem to its key, for a form to show beside it.
func TestValidateFieldErrors(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	c.IdleAction, c.AgingPerHour, c.BookingLimits.MaxGPUs, c.LAS.MaxLostShare = "sometimes", -1, -2, 2
	c.Retention.JobEvents = Age(time.Minute)
	fields, rest := FieldErrors(c.Validate())
	var keys []string
	for _, f := range fields {
		keys = append(keys, f.Key)
	}
	want := []string{"aging_per_hour", "booking_limits.max_gpus", "idle_action", "las.max_lost_share", "retention.job_events"}
	slices.Sort(keys)
	if d := cmp.Diff(want, keys); d != "" || len(rest) > 0 {
		t.Errorf("keys (-want +got):\n%s\nothers: %v", d, rest)
	}
}
