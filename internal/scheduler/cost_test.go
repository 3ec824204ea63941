package scheduler

import (
	"strings"
	"testing"
)

// A rate prices the GPU models whose names contain its key, the longest
// key first; models no key matches have no rate.
func TestCostRate(t *testing.T) {
	t.Parallel()
	p := CostPolicy{CostRates: map[string]float64{"H100": 2.5, "h100 nvl": 3, "A100": 1.2}, Currency: "EUR"}
	tests := map[string]struct {
		model string
		rate  float64
		ok    bool
	}{
		"H100 SXM":           {"NVIDIA H100 80GB HBM3", 2.5, true},
		"the longer key":     {"NVIDIA H100 NVL", 3, true},
		"another model":      {"NVIDIA A100-SXM4-40GB", 1.2, true},
		"a model unpriced":   {"NVIDIA L4", 0, false},
		"a MIG slice of one": {"NVIDIA H100 80GB HBM3 MIG 1g.10gb", 2.5, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rate, _, ok := p.Rate(tc.model)
			if rate != tc.rate || ok != tc.ok {
				t.Errorf("Rate(%q) = %v %v, want %v %v", tc.model, rate, ok, tc.rate, tc.ok)
			}
		})
	}
	c := DefaultConfig()
	c.CostRates = map[string]float64{"H100": -1, " ": 1}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "cost_rates") {
		t.Errorf("negative and empty rates: %v", err)
	}
}
