package main

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

func TestScoringConfig(t *testing.T) {
	t.Parallel()
	tuned := scoring.DefaultConfig()
	tuned.Lambda, tuned.Beta, tuned.Gamma, tuned.ExplorationCap, tuned.EnableInterference = 0.5, 1.2, 0.4, 0, true
	tests := map[string]struct {
		env     map[string]string
		want    scoring.Config
		trusted []netip.Prefix
		err     string
	}{
		"defaults": {want: scoring.DefaultConfig()},
		"tuned": {env: map[string]string{"SCHEDULER_LAMBDA_UNCERTAINTY": "0.5", "SCHEDULER_BETA_EXPLORATION": "1.2",
			"SCHEDULER_GAMMA_INTERFERENCE": "0.4", "SCHEDULER_EXPLORATION_CAP": "0", "SCHEDULER_ENABLE_INTERFERENCE": "true",
			"GPUSCHED_SCORING_TRUSTED_NETWORKS": "10.1.2.3/8, 192.168.0.7"},
			want: tuned, trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.0.7/32")}},
		"cap above 1":  {env: map[string]string{"SCHEDULER_EXPLORATION_CAP": "1.5"}, err: "SCHEDULER_EXPLORATION_CAP"},
		"negative λ":   {env: map[string]string{"SCHEDULER_LAMBDA_UNCERTAINTY": "-1"}, err: "SCHEDULER_LAMBDA_UNCERTAINTY"},
		"NaN β":        {env: map[string]string{"SCHEDULER_BETA_EXPLORATION": "NaN"}, err: "SCHEDULER_BETA_EXPLORATION"},
		"not a bool":   {env: map[string]string{"SCHEDULER_ENABLE_INTERFERENCE": "maybe"}, err: "SCHEDULER_ENABLE_INTERFERENCE"},
		"bad network":  {env: map[string]string{"GPUSCHED_SCORING_TRUSTED_NETWORKS": "10.0.0.0/33"}, err: "GPUSCHED_SCORING_TRUSTED_NETWORKS"},
		"via loadConf": {env: map[string]string{"SCHEDULER_BETA_EXPLORATION": "2"}, want: func() scoring.Config { c := scoring.DefaultConfig(); c.Beta = 2; return c }()},
	}
	for name, tc := range tests {
		c, err := loadConfig(nil, envOf(tc.env))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one naming %s", name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(tc.want, c.Scoring); diff != "" {
			t.Errorf("%s: scoring (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(tc.trusted, c.ScoringTrusted, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
			t.Errorf("%s: trusted (-want +got):\n%s", name, diff)
		}
	}
}
