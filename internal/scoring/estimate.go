package scoring

import (
	"math"
	"sort"
	"time"
)

// Moments are the sufficient statistics of a stream of numbers (Welford):
// their count, mean and sum of squared deviations from the mean. Runtime
// moments are of ln(runtime in seconds); interference moments are of
// slowdowns.
type Moments struct {
	N    int64
	Mean float64
	M2   float64
}

// Add folds one value in.
func (m Moments) Add(x float64) Moments {
	m.N++
	d := x - m.Mean
	m.Mean += d / float64(m.N)
	m.M2 += d * (x - m.Mean)
	if m.M2 < 0 {
		m.M2 = 0 // rounding only
	}
	return m
}

// Estimate is the posterior belief about one (job type, GPU type)'s runtime.
type Estimate struct {
	// Mu is the runtime estimate in seconds: the posterior median
	// exp(mean of ln runtime).
	Mu float64
	// Sigma is the uncertainty of Mu in seconds (Mu·√LogVar, first order).
	Sigma float64
	// LogMean and LogVar are the posterior mean of ln(runtime) and its
	// variance: the uncertainty about the mean, which shrinks as
	// observations agree (not the spread of single runs, which is Noise).
	LogMean, LogVar float64
	// Noise is the posterior estimate of one run's variance in log space.
	Noise float64
	// N is how many observations back the estimate.
	N int64
}

// Prior is the belief about ln(runtime) before an observation of the key:
// its mean and the variance of that mean.
type Prior struct{ LogMean, LogVar float64 }

// Posterior updates the prior by the moments m of ln(runtime). The model is
// normal in log space with unknown mean and variance: a scaled-inverse-χ²
// prior on the variance (PriorNoise², worth PriorDoF observations) and,
// once there is data, a flat prior on the mean (the conjugate normal update
// in the limit of a prior mean worth no observations), so a guessed prior
// mean never biases what was measured:
//
//	mean = x̄,  noise sₙ² = (ν₀·s₀² + M2)/(ν₀ + n),  var(mean) = sₙ²/n.
//
// Before any observation the estimate is the prior. Sufficient statistics
// make the result independent of the observations' order (up to rounding),
// and agreeing observations shrink var(mean) at every step.
func (c Config) Posterior(m Moments, p Prior) Estimate {
	e := Estimate{LogMean: p.LogMean, LogVar: p.LogVar, Noise: c.PriorNoise * c.PriorNoise, N: m.N}
	if m.N > 0 {
		n := float64(m.N)
		e.LogMean = m.Mean
		e.Noise = (c.PriorDoF*c.PriorNoise*c.PriorNoise + m.M2) / (c.PriorDoF + n)
		e.LogVar = e.Noise / n
	}
	e.Mu = math.Exp(e.LogMean)
	e.Sigma = e.Mu * math.Sqrt(e.LogVar)
	return e
}

// Key names one (job type, GPU type) pair.
type Key struct{ JobType, GPUType string }

// Pair names a job type and another job type it ran beside.
type Pair struct{ JobType, Other string }

// State is what the model has learned, as read for a decision: it may hold
// only the rows of the job types concerned.
type State struct {
	Runtime      map[Key]Moments
	Interference map[Pair]Moments
}

// PriorFor is the prior of jobType on gpuType: the average (in log space,
// in GPU type order, so it is deterministic) of what was learned for the job
// type on other GPU types, give or take GPUTypeSpread; else ln(PriorMean),
// give or take PriorSpread.
func (c Config) PriorFor(st State, jobType, gpuType string) Prior {
	var gpus []string
	for k, m := range st.Runtime {
		if k.JobType == jobType && k.GPUType != gpuType && m.N > 0 {
			gpus = append(gpus, k.GPUType)
		}
	}
	if len(gpus) == 0 {
		return Prior{LogMean: math.Log(c.PriorMean.Seconds()), LogVar: c.PriorSpread * c.PriorSpread}
	}
	sort.Strings(gpus)
	sum := 0.0
	for _, g := range gpus {
		sum += st.Runtime[Key{jobType, g}].Mean
	}
	return Prior{LogMean: sum / float64(len(gpus)), LogVar: c.GPUTypeSpread * c.GPUTypeSpread}
}

// Estimate is the posterior for (jobType, gpuType) in st.
func (c Config) Estimate(st State, jobType, gpuType string) Estimate {
	m := st.Runtime[Key{jobType, gpuType}]
	if m.N > 0 {
		return c.Posterior(m, Prior{}) // the data decide; no prior to look up
	}
	return c.Posterior(m, c.PriorFor(st, jobType, gpuType))
}

// InformationGain is IG = ½·log(1 + σ²/τ²) with σ² the variance of the
// log-runtime mean: what one more observation would teach, in nats.
func (c Config) InformationGain(e Estimate) float64 {
	return 0.5 * math.Log1p(e.LogVar/c.Tau2)
}

// RuntimeDuration is a learned runtime in seconds as a scheduler estimate:
// whole seconds, at least one, at most MaxRuntimeS.
func RuntimeDuration(secs float64) time.Duration {
	return max(time.Second, time.Duration(math.Min(math.Round(secs), MaxRuntimeS))*time.Second)
}
