package main

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// scoringConfig reads the scoring service's knobs (spec/scoring-service.md,
// same names and defaults) and the networks trusted to call its bare /v1
// aliases without a token; problems go to fail.
func scoringConfig(getenv func(string) string, fail func(string, ...any)) (scoring.Config, []netip.Prefix) {
	c := scoring.DefaultConfig()
	num := func(name string, dst *float64, lo, hi float64) {
		s := strings.TrimSpace(getenv(name))
		if s == "" {
			return
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < lo || v > hi || v != v {
			fail("%s=%q must be a number from %v to %v", name, s, lo, hi)
			return
		}
		*dst = v
	}
	num("SCHEDULER_LAMBDA_UNCERTAINTY", &c.Lambda, 0, 1e6)
	num("SCHEDULER_BETA_EXPLORATION", &c.Beta, 0, 1e6)
	num("SCHEDULER_GAMMA_INTERFERENCE", &c.Gamma, 0, 1e6)
	num("SCHEDULER_EXPLORATION_CAP", &c.ExplorationCap, 0, 1)
	if s := strings.TrimSpace(getenv("SCHEDULER_ENABLE_INTERFERENCE")); s != "" {
		v, err := strconv.ParseBool(s)
		if err != nil {
			fail("SCHEDULER_ENABLE_INTERFERENCE=%q is not true or false", s)
		}
		c.EnableInterference = v
	}
	return c, networks(getenv, "GPUSCHED_SCORING_TRUSTED_NETWORKS", fail)
}

// networks reads env as a comma-separated list of networks (10.0.0.0/8)
// or single addresses.
func networks(getenv func(string) string, env string, fail func(string, ...any)) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range splitList(getenv(env)) {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				fail("%s: %q is not a network like 10.0.0.0/8 or an address", env, s)
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out
}
