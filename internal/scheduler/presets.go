package scheduler

import (
	"maps"
	"slices"
	"strings"
)

// presets are the named configurations; each starts from DefaultConfig, so
// durations, aging rate and fair-share weights are the defaults. The pairs
// "X" and "X-backfill" differ only in Backfill.
var presets = map[string]func(*Config){
	"default": func(*Config) {},
	// fcfs: arrival order, strict, nothing preempted, no aging.
	PolicyFCFS: func(c *Config) { c.Policy, c.Backfill, c.Preemption, c.AgingPerHour = PolicyFCFS, false, false, 0 },
	// priority: priority with aging and preemption, strict order.
	PolicyPriority: func(c *Config) { c.Policy, c.Backfill, c.Preemption = PolicyPriority, false, true },
	// priority-backfill: priority, aging, backfill and preemption.
	"priority-backfill": func(c *Config) { c.Policy, c.Backfill, c.Preemption = PolicyPriority, true, true },
	// fairshare: multifactor with preemption, strict order.
	PolicyFairShare: func(c *Config) { c.Policy, c.Backfill, c.Preemption = PolicyFairShare, false, true },
	// fairshare-backfill: the default configuration until the attained-
	// service policy replaced it (see internal/sim/README.md).
	"fairshare-backfill": func(c *Config) { c.Policy, c.Backfill, c.Preemption = PolicyFairShare, true, true },
	// sjf: shortest estimate first, strict; no preemption, since its order
	// ignores priority.
	PolicySJF: func(c *Config) { c.Policy, c.Backfill, c.Preemption = PolicySJF, false, false },
	// las: attained service in discretized levels, strict order, priority
	// preemption and checkpoint preemption on demotion.
	PolicyLAS: func(c *Config) { c.Policy, c.Backfill, c.Preemption = PolicyLAS, false, true },
	// las-backfill: las with backfill.
	"las-backfill": func(c *Config) { c.Policy, c.Backfill, c.Preemption = PolicyLAS, true, true },
	// gittins-backfill: the Gittins index of the learned runtime
	// distribution within each LAS level, backfill on learned estimates.
	"gittins-backfill": func(c *Config) {
		c.Policy, c.Backfill, c.Preemption, c.Estimates = PolicyGittins, true, true, EstimatesLearned
	},
	// las-learned: las-backfill that backfills on learned estimates only.
	"las-learned": func(c *Config) {
		c.Policy, c.Backfill, c.Preemption, c.Estimates = PolicyLAS, true, true, EstimatesLearned
	},
	// fairshare-entitled: fairshare-backfill that counts only use beyond
	// each user's entitled share of the cluster.
	"fairshare-entitled": func(c *Config) {
		c.Policy, c.Backfill, c.Preemption, c.FairShare.Entitled = PolicyFairShare, true, true, true
	},
	// sjf-backfill: sjf with backfill.
	"sjf-backfill": func(c *Config) { c.Policy, c.Backfill, c.Preemption = PolicySJF, true, false },
}

// Preset returns a named configuration for the simulator and the API:
// "fcfs" (FCFS, no backfill, no preemption, no aging), "priority"
// (priority with aging and preemption, strict order), "priority-backfill"
// (priority + aging + backfill + preemption), "fairshare" (multifactor with
// preemption, strict order), "fairshare-backfill" (the same with backfill),
// "fairshare-entitled" (fair share counting only use beyond the entitled
// share), "sjf" and "sjf-backfill" (shortest estimate first, no
// preemption), "las" and "las-backfill" (attained service, checkpoint
// preemption), "las-learned" (las-backfill backfilling on learned
// estimates only), "gittins-backfill" (Gittins index of the learned runtime
// distribution), and "default" (= DefaultConfig(), las-backfill). Names are matched ignoring case and surrounding
// space; false for an unknown name.
func Preset(name string) (Config, bool) {
	set, ok := presets[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return Config{}, false
	}
	c := DefaultConfig()
	set(&c)
	return c, true
}

// PresetNames lists the names Preset knows, sorted, for help texts.
func PresetNames() []string {
	return slices.Sorted(maps.Keys(presets))
}
