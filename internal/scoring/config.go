// Package scoring is the scoring service's model (spec/scoring-service.md):
// per (job type, GPU type) a Bayesian estimate of runtime learned from
// observations, the information-theoretic cost
// μ + λ·σ − β·IG + γ·interference that trades exploiting what is known
// against learning what is not, an exploration cap, and learned
// interference between co-located job types. Spreading several waiting jobs
// over GPU types at once (Sinkhorn) is the scheduling core's steering
// (internal/scheduler), fed with ExpectedCost.
//
// It is pure: standard library only, no clock, no I/O, no goroutines, no
// randomness (imports_test.go enforces it). State comes in as values, and
// the same state and request always give the same decision. README.md
// explains the model and its choices.
package scoring

import (
	"fmt"
	"math"
	"time"
)

// Config holds the model's knobs. Zero values are not defaults: start from
// DefaultConfig.
type Config struct {
	// Lambda weighs uncertainty (SCHEDULER_LAMBDA_UNCERTAINTY, default 0.3).
	Lambda float64
	// Beta weighs information gain (SCHEDULER_BETA_EXPLORATION, default 0.7).
	Beta float64
	// Gamma weighs the learned interference (SCHEDULER_GAMMA_INTERFERENCE, default 0).
	Gamma float64
	// Tau2 is τ², the variance of one observation's noise in IG = ½·log(1 + σ²/τ²),
	// in log-runtime units (0.01: about 10% noise).
	Tau2 float64
	// ExplorationCap bounds the share of exploratory decisions, over all
	// decisions and over the last Window (SCHEDULER_EXPLORATION_CAP, default 0.25).
	ExplorationCap float64
	// Window is how many recent decisions the cap is also held over (default 100).
	Window int
	// EnableInterference applies learned co-location slowdowns to the cost
	// and to avoid_co_locate_with (SCHEDULER_ENABLE_INTERFERENCE, default false).
	// Slowdowns are learned either way.
	EnableInterference bool
	// AvoidThreshold is the learned slowdown (0.1 = 10%) above which a
	// co-located job type is named in avoid_co_locate_with.
	AvoidThreshold float64
	// PriorMean is the runtime assumed for a job type never observed on any
	// GPU type (default 4h, the scheduler's default duration).
	PriorMean time.Duration
	// PriorSpread is the standard deviation of ln(runtime) about PriorMean
	// for a job type never observed (default 3: from minutes to days).
	PriorSpread float64
	// GPUTypeSpread is the standard deviation of ln(runtime) of a job type
	// on a GPU type it was never observed on, about its mean on the others
	// (default 1: GPU types differ by up to a few times).
	GPUTypeSpread float64
	// PriorNoise is s₀, the prior standard deviation of one observation in
	// log space (default 0.5: runs vary by about ±50%), worth PriorDoF
	// observations (ν₀, default 2).
	PriorNoise float64
	PriorDoF   float64
}

// DefaultConfig returns the document's defaults.
func DefaultConfig() Config {
	return Config{
		Lambda: 0.3, Beta: 0.7, Gamma: 0, Tau2: 0.01, ExplorationCap: 0.25, Window: 100,
		AvoidThreshold: 0.1, PriorMean: 4 * time.Hour, PriorSpread: 3, GPUTypeSpread: 1,
		PriorNoise: 0.5, PriorDoF: 2,
	}
}

// Validate reports the first knob out of range.
func (c Config) Validate() error {
	nonNeg := map[string]float64{"lambda": c.Lambda, "beta": c.Beta, "gamma": c.Gamma}
	for _, name := range []string{"lambda", "beta", "gamma"} {
		if v := nonNeg[name]; !finite(v) || v < 0 {
			return fmt.Errorf("scoring: %s = %v must be a finite number ≥ 0", name, v)
		}
	}
	switch {
	case !finite(c.Tau2) || c.Tau2 <= 0:
		return fmt.Errorf("scoring: tau² = %v must be > 0", c.Tau2)
	case !finite(c.ExplorationCap) || c.ExplorationCap < 0 || c.ExplorationCap > 1:
		return fmt.Errorf("scoring: exploration cap = %v must be between 0 and 1", c.ExplorationCap)
	case c.Window < 1:
		return fmt.Errorf("scoring: window = %d must be ≥ 1", c.Window)
	case c.PriorMean <= 0:
		return fmt.Errorf("scoring: prior mean = %v must be > 0", c.PriorMean)
	case !(c.PriorSpread > 0) || !(c.GPUTypeSpread > 0) || !(c.PriorNoise > 0) || !(c.PriorDoF > 0) ||
		!finite(c.PriorSpread+c.GPUTypeSpread+c.PriorNoise+c.PriorDoF):
		return fmt.Errorf("scoring: prior spreads, noise and degrees of freedom must be finite and > 0")
	case !finite(c.AvoidThreshold):
		return fmt.Errorf("scoring: avoid threshold = %v must be finite", c.AvoidThreshold)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
