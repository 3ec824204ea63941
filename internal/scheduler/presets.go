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

// PresetInfo says what a preset does and when to choose it, for the admin
// page and GET /orchestrator/policies/presets.
type PresetInfo struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`  // one sentence: what it does
	UseWhen string `json:"use_when"` // one sentence: when to choose it
}

// presetInfo lists every preset with its sentences, in the order an admin
// reads them: the default first, then by family.
var presetInfo = []PresetInfo{
	{"default", "The server's default: the same as las-backfill.", "Unless you know why you want another."},
	{"las-backfill", "Jobs that have had the least GPU time go first, in four levels (GPU-time level 1 of 4, the least GPU time had, goes first); small jobs fill gaps without delaying the head; checkpointing jobs may be paused when demoted.",
		"A team with mixed short and long jobs and no reliable run-time estimates."},
	{"las", "Least GPU time first, in four levels, in strict order: nothing jumps ahead to fill a gap.", "You want the order of las-backfill to be strict, at the cost of idle GPUs."},
	{"las-learned", "las-backfill, but gaps are filled on run times learned from earlier runs, never on what users announce.",
		"Users' --time estimates are often wrong and the same job types run again and again."},
	{"gittins-backfill", "Within each level, the job most likely to finish soon (from learned run times) goes first; with backfill on learned estimates.",
		"Many repeated job types with enough history; the most efficient order when run times are learned."},
	{"fairshare-backfill", "Slurm-style fair share: who used less over the last weeks goes first, weighed with wait, priority and size; with backfill.",
		"Several people or teams must get their share over time; the classic HPC choice."},
	{"fairshare", "Fair share as fairshare-backfill, in strict order.", "Fair share where no job may be overtaken to fill a gap."},
	{"fairshare-entitled", "Fair share that counts only use beyond each user's entitled share of the cluster; with backfill.",
		"Fair share keeps pushing back someone who ran one long job well within their share."},
	{"priority-backfill", "Higher priority first, waiting jobs gain priority with age, higher priority may preempt lower; with backfill.",
		"Deadlines matter more than equal shares and people set priorities honestly."},
	{"priority", "Priority with aging and preemption, in strict order.", "Priorities decide and no job may be overtaken to fill a gap."},
	{"sjf-backfill", "Shortest estimated run time first, no preemption; with backfill.", "Jobs come with reliable --time estimates and quick turnaround matters most."},
	{"sjf", "Shortest estimated run time first, in strict order, no preemption.", "As sjf-backfill, when long jobs must not be overtaken once at the head."},
	{"fcfs", "First come, first served: arrival order, nothing preempted, no aging, no backfill.", "A small team that wants the simplest rule to explain, or to compare against."},
}

// Presets lists every preset with what it does and when to choose it.
func Presets() []PresetInfo { return slices.Clone(presetInfo) }

// orderKeys are the keys a preset chooses; the rest of a policy (tuning,
// idle GPUs, retention, leases, booking limits) is the same in every preset.
type orderKeys struct {
	policy, estimates    string
	backfill, preemption bool
	entitled             bool
}

func orderOf(c Config) orderKeys {
	est := c.Estimates
	if est == EstimatesUser {
		est = ""
	}
	return orderKeys{c.Policy, est, c.Backfill, c.Preemption, c.FairShare.Entitled}
}

// MatchPreset names the first preset (in the order of Presets) whose order
// keys (policy, backfill, preemption, estimates, fair_share.entitled) are
// c's; "" when none is.
func MatchPreset(c Config) string {
	for _, p := range presetInfo {
		if pc, _ := Preset(p.Name); orderOf(pc) == orderOf(c) {
			return p.Name
		}
	}
	return ""
}

// ApplyPreset returns c with the order keys of preset name (policy,
// backfill, preemption, estimates, fair_share.entitled); every other key
// stays c's. False for an unknown name.
func ApplyPreset(name string, c Config) (Config, bool) {
	p, ok := Preset(name)
	if !ok {
		return c, false
	}
	c.Policy, c.Backfill, c.Preemption, c.Estimates, c.FairShare.Entitled = p.Policy, p.Backfill, p.Preemption, p.Estimates, p.FairShare.Entitled
	return c, true
}
