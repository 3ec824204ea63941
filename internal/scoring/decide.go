package scoring

import (
	"errors"
	"fmt"
	"math"
)

// Request asks which of the candidate GPU types a job of JobType should run
// on, beside the Colocated job types.
type Request struct {
	JobType    string
	Candidates []string
	Colocated  []string
}

// Validate says, in a sentence, what makes the request unusable.
func (r Request) Validate() error {
	if err := checkName("job_type", r.JobType); err != nil {
		return err
	}
	if len(r.Candidates) == 0 {
		return errors.New("candidate_gpu_types must name at least one GPU type")
	}
	if err := checkNames("candidate_gpu_types", r.Candidates, MaxCandidates); err != nil {
		return err
	}
	return checkNames("colocated_job_types", r.Colocated, MaxColocated)
}

// Terms are one candidate's share of the cost. Cost is in units of the
// reference runtime R, the smallest Mu among the candidates, so that λ, β
// and γ mean the same for a one-minute and a ten-hour job:
// cost = Mu/R + λ·Sigma/R − β·IG + γ·Interference·Mu/R.
type Terms struct {
	GPUType string
	Mu      float64 // runtime estimate, seconds
	Sigma   float64 // its uncertainty, seconds
	IG      float64 // information gain of one more run, nats
	// Interference is the learned slowdown beside the co-located job types
	// (0.2 = 20% longer); 0 unless interference is enabled.
	Interference float64
	Cost         float64
	// ExploitCost is Cost without the information gain: what the job is
	// expected to cost, risk included, for what is known now.
	ExploitCost float64
	N           int64 // observations behind Mu
}

// Decision is the answer to a Request.
type Decision struct {
	Chosen     Terms
	Candidates []Terms // in the request's order, duplicates removed
	// Explored is true when Chosen was picked for what it would teach
	// rather than for the lowest ExploitCost.
	Explored bool
	// Capped is true when exploring was better but the cap said no.
	Capped bool
	// PriorityScore is 0–100: where Chosen's ExploitCost (expected runtime,
	// risk and interference) lies between the worst (0) and the best (100)
	// candidate's; 50 when they are all the same. An exploratory pick scores
	// below 100: the job is sent where it is expected to run slower.
	PriorityScore float64
	// Avoid are co-located job types whose learned slowdown exceeds
	// AvoidThreshold (only when interference is enabled).
	Avoid []string
}

// Decide scores every candidate and picks one: the lowest cost, unless that
// is an exploratory pick the explorer does not allow, then the lowest
// ExploitCost. Ties go to the GPU type that sorts first, so the decision
// does not depend on the candidates' order. It records the decision in ex.
func (c Config) Decide(st State, r Request, ex *Explorer) (Decision, error) {
	if err := r.Validate(); err != nil {
		return Decision{}, err
	}
	var d Decision
	seen := map[string]bool{}
	ref := math.Inf(1)
	for _, g := range r.Candidates {
		if seen[g] {
			continue
		}
		seen[g] = true
		e := c.Estimate(st, r.JobType, g)
		d.Candidates = append(d.Candidates, Terms{GPUType: g, Mu: e.Mu, Sigma: e.Sigma, IG: c.InformationGain(e), N: e.N})
		ref = math.Min(ref, e.Mu)
	}
	var slow float64
	if c.EnableInterference {
		slow, d.Avoid = c.Interference(st, r.JobType, r.Colocated)
	}
	best, exploit := 0, 0
	for i := range d.Candidates {
		t := &d.Candidates[i]
		t.Interference = slow
		t.ExploitCost = (c.ExpectedCost(Estimate{Mu: t.Mu, Sigma: t.Sigma}) + c.Gamma*slow*t.Mu) / ref
		t.Cost = t.ExploitCost - c.Beta*t.IG
		if !finite(t.Cost) {
			return Decision{}, fmt.Errorf("scoring: cost of %s on %s is %v", r.JobType, t.GPUType, t.Cost)
		}
		if less(t.Cost, t.GPUType, d.Candidates[best].Cost, d.Candidates[best].GPUType) {
			best = i
		}
		if less(t.ExploitCost, t.GPUType, d.Candidates[exploit].ExploitCost, d.Candidates[exploit].GPUType) {
			exploit = i
		}
	}
	pick := exploit
	if best != exploit {
		if ex.Allow() {
			pick, d.Explored = best, true
		} else {
			d.Capped = true
		}
	}
	ex.Record(d.Explored)
	d.Chosen = d.Candidates[pick]
	d.PriorityScore = priorityScore(d.Candidates, d.Chosen.ExploitCost)
	return d, nil
}

// ExpectedCost is what a run is expected to cost for what is known now, in
// seconds, beside no co-located job: the runtime estimate plus λ times its
// uncertainty (μ + λ·σ; Decide's ExploitCost before it is put in units of
// the reference runtime). Steering ranks GPU models by it.
func (c Config) ExpectedCost(e Estimate) float64 { return e.Mu + c.Lambda*e.Sigma }

func less(a float64, ag string, b float64, bg string) bool {
	return a < b || (a == b && ag < bg)
}

func priorityScore(ts []Terms, cost float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range ts {
		lo, hi = math.Min(lo, t.ExploitCost), math.Max(hi, t.ExploitCost)
	}
	if hi-lo <= 1e-12*math.Max(1, math.Abs(hi)) {
		return 50
	}
	return math.Max(0, math.Min(100, 100*(hi-cost)/(hi-lo)))
}
