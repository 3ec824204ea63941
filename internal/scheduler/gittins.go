package scheduler

import (
	"math"
	"time"
)

// Estimate modes of Config.Estimates.
const (
	EstimatesUser    = "user"    // the user's estimate, else the learned median
	EstimatesLearned = "learned" // the learned median only
)

// MinLearnedRuns is how many finished runs a learned distribution needs
// before the core trusts it (Job.Learned.N).
const MinLearnedRuns = 3

// learnedMedian is the median of a job's learned runtime distribution, 0
// when there is too little history.
func learnedMedian(j *Job) time.Duration {
	d := j.Learned
	if d.N < MinLearnedRuns || math.IsNaN(d.LogMean) || math.IsInf(d.LogMean, 0) {
		return 0
	}
	s := math.Min(math.Exp(math.Min(d.LogMean, 30)), float64(1<<62)/float64(time.Second))
	return max(time.Second, time.Duration(s*float64(time.Second)))
}

// gittinsPoints is the number of candidate quanta Δ the index maximises over.
const gittinsPoints = 24

// gittinsIndex is the Gittins index of a job that has run a seconds under
// a log-normal runtime distribution (ln S ~ N(mu, sigma²)):
//
//	G(a) = max over Δ of P(a < S ≤ a+Δ) / ∫_a^{a+Δ} P(S > t) dt
//
// the best rate at which serving the job for Δ more seconds completes it.
// Higher is served first; for a point mass it is 1/(S−a), shortest
// remaining first, and for a heavy tail it favours jobs that have had
// little service, as LAS does. Δ runs over quantiles of the distribution
// beyond a; the integral is the trapezoid rule on a log grid.
func gittinsIndex(mu, sigma, a float64) float64 {
	sigma = math.Max(sigma, 0.05)
	surv := func(t float64) float64 { // P(S > t)
		if t <= 0 {
			return 1
		}
		return 0.5 * math.Erfc((math.Log(t)-mu)/(sigma*math.Sqrt2))
	}
	sa := surv(a)
	if sa < 1e-12 { // ran past everything the distribution knows: treat as due now
		return 1 / math.Max(math.Exp(mu-3*sigma), 1)
	}
	best := 0.0
	prevT, prevS, area := a, sa, 0.0
	for k := 1; k <= gittinsPoints; k++ {
		// Quantiles of S beyond a: P(S > t) = sa·(1 − k/(points+1)).
		q := sa * (1 - float64(k)/float64(gittinsPoints+1))
		t := math.Exp(mu + sigma*math.Sqrt2*erfcInv(2*q))
		if !(t > prevT) || math.IsInf(t, 0) {
			continue
		}
		s := surv(t)
		area += (t - prevT) * (prevS + s) / 2
		if area > 0 {
			best = math.Max(best, (sa-s)/area)
		}
		prevT, prevS = t, s
	}
	return best
}

// erfcInv is the inverse complementary error function on (0, 2).
func erfcInv(x float64) float64 { return math.Erfinv(1 - x) }

// gittinsOf is a pending job's Gittins index (per second of run, higher
// first), from its learned distribution and the wall time it has run
// (attained GPU-seconds over its GPUs); without enough history, that of
// a job whose runtime is broadly spread around the default duration.
func (p *pass) gittinsOf(j *Job) float64 {
	ran := cleanUsage(j.AttainedGPUSeconds) / float64(max(1, j.GPUCount))
	d := j.Learned
	mu, sigma := d.LogMean, d.LogStd
	if d.N < MinLearnedRuns || math.IsNaN(d.LogMean) || math.IsInf(d.LogMean, 0) || math.IsNaN(d.LogStd) {
		mu, sigma = math.Log(p.defDur.Seconds()), 1.5
	}
	k := gittinsKey{mu, sigma, ran}
	if g, ok := p.gittins[k]; ok {
		return g
	}
	if p.gittins == nil {
		p.gittins = map[gittinsKey]float64{}
	}
	g := gittinsIndex(mu, sigma, ran)
	p.gittins[k] = g
	return g
}

// gittinsKey is what a Gittins index depends on, to compute it once per
// pass for the many jobs of one type that have not run yet.
type gittinsKey struct{ mu, sigma, ran float64 }

// overrunLeft is how much longer a running job that has outrun its
// estimate is expected to run, in nanoseconds: the median of its learned
// runtime distribution beyond the wall time it has run (all runs), i.e.
// the t with P(S > t) = P(S > ran)/2. 0 (ends now, as for other policies)
// without a trusted distribution or when the job has outrun everything it
// knows.
func (p *pass) overrunLeft(j *Job) int64 {
	d := j.Learned
	if d.N < MinLearnedRuns || math.IsNaN(d.LogMean) || math.IsInf(d.LogMean, 0) ||
		math.IsNaN(d.LogStd) || math.IsInf(d.LogStd, 0) {
		return 0
	}
	ran := cleanUsage(j.AttainedGPUSeconds)/float64(max(1, j.GPUCount)) + max(0, p.now.Sub(j.StartedAt)).Seconds()
	sigma := math.Max(d.LogStd, 0.05)
	sa := 1.0
	if ran > 0 {
		sa = 0.5 * math.Erfc((math.Log(ran)-d.LogMean)/(sigma*math.Sqrt2))
	}
	if sa < 1e-9 {
		return 0
	}
	t := math.Exp(math.Min(d.LogMean+sigma*math.Sqrt2*erfcInv(sa), 40))
	left := math.Min(t-ran, float64(forever)/float64(time.Second)/2)
	if !(left > 0) {
		return 0
	}
	return int64(left * float64(time.Second))
}
