package sim

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// DefaultPolicy names the server's default configuration
// (scheduler.DefaultConfig) among the policies a replay compares.
const DefaultPolicy = "default"

// Policy is a named scheduler configuration to replay.
type Policy struct {
	Name   string           // as given to --policy
	Config scheduler.Config // what the core runs with
}

// PolicyNames lists what Policies accepts, in the order a full comparison
// prints them: fcfs, the other built-in presets, then default.
func PolicyNames() []string {
	names := []string{scheduler.PolicyFCFS}
	for _, n := range scheduler.PresetNames() {
		if n != scheduler.PolicyFCFS && n != DefaultPolicy {
			names = append(names, n)
		}
	}
	return append(names, DefaultPolicy)
}

// Policies resolves policy names to configurations: "default" is the
// server's default, any other name a built-in preset. No names means
// PolicyNames(), in that order.
func Policies(names []string) ([]Policy, error) {
	if len(names) == 0 {
		names = PolicyNames()
	}
	var ps []Policy
	for _, raw := range names {
		name := strings.ToLower(strings.TrimSpace(raw))
		cfg, ok := scheduler.DefaultConfig(), name == DefaultPolicy
		if !ok {
			cfg, ok = scheduler.Preset(name)
		}
		if !ok {
			return nil, fmt.Errorf("policy %q is not one of %s", raw, strings.Join(PolicyNames(), ", "))
		}
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
		ps = append(ps, Policy{Name: name, Config: cfg})
	}
	return ps, nil
}

// Compare replays w under every policy, up to workers replays at a time
// (each replay is independent and deterministic), and returns their
// metrics in the order of ps.
func Compare(w *Workload, ps []Policy, workers int) ([]Metrics, error) {
	out := make([]Metrics, len(ps))
	errs := make([]error, len(ps))
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for k, p := range ps {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := Run(w, p.Config)
			if err != nil {
				errs[k] = fmt.Errorf("policy %s: %w", p.Name, err)
				return
			}
			out[k] = Summarize(p.Name, r, w.Cluster.GPUs(), w.OfferedLoad)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
