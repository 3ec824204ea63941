package scheduler

import (
	"testing"

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
