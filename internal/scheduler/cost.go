package scheduler

import (
	"math"
	"sort"
	"strings"
)

// CostPolicy prices GPU time for accounting: what one GPU-hour of a model
// costs, in Currency. Its keys are top-level in the policy:
//
//	"cost_rates": {"H100": 2.5, "A100": 1.2}, "currency": "EUR"
//
// A rate's key matches a GPU model whose name contains it, ignoring case
// ("H100" prices "NVIDIA H100 80GB HBM3"); where several keys match, the
// longest wins. GPU time on a model no key matches costs nothing and is
// listed as unpriced. Scheduling does not read it.
type CostPolicy struct {
	CostRates map[string]float64 `json:"cost_rates,omitempty"`
	// Currency is the rates' currency, as people write it ("EUR", "USD",
	// "credits"); "" when rates have none.
	Currency string `json:"currency,omitempty"`
}

// Rate is the price of one GPU-hour of model and the key that set it;
// ok is false when no key matches.
func (p CostPolicy) Rate(model string) (rate float64, key string, ok bool) {
	m := strings.ToLower(model)
	keys := make([]string, 0, len(p.CostRates))
	for k := range p.CostRates {
		keys = append(keys, k)
	}
	sort.Strings(keys) // among keys of one length, the first in order wins
	for _, k := range keys {
		if strings.Contains(m, strings.ToLower(k)) && len(k) > len(key) {
			rate, key, ok = p.CostRates[k], k, true
		}
	}
	return rate, key, ok
}

func (p CostPolicy) validate() []error {
	var errs []error
	for k, v := range p.CostRates {
		if strings.TrimSpace(k) == "" {
			errs = append(errs, keyErr("cost_rates", "cost_rates: a GPU model is empty"))
		}
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			errs = append(errs, keyErr("cost_rates", "cost_rates[%q] must be a price per GPU-hour, 0 or more", k))
		}
	}
	if len(p.Currency) > 16 {
		errs = append(errs, keyErr("currency", "currency is at most 16 characters (EUR, USD, credits)"))
	}
	return errs
}
