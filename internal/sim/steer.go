package sim

import (
	"math"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// steerBook is what the scoring model learns during one replay on a cluster
// of several GPU models, and the steering costs it gives the core, as the
// server's pass gets them (models.applyLearned): each job that completes
// is observed with its job type (JobType), the GPU model of its last run
// and that run's wall time; every pass then carries, for each job type
// observed so far, its expected cost (scoring.Config.ExpectedCost) and
// learned runtime on each GPU model of the cluster. Nothing is known at
// the start, so early jobs go where placement puts them, as on a new
// server; the model learns only from where jobs actually ran.
type steerBook struct {
	cfg    scoring.Config
	models []string
	st     scoring.State
	costs  []scheduler.SteerCost // for the state as it is; nil: to compute
	types  []string              // job types observed, in first-seen order
}

func newSteerBook(c Cluster, cfg scoring.Config) *steerBook {
	if cfg == (scoring.Config{}) {
		cfg = scoring.DefaultConfig()
	}
	return &steerBook{cfg: cfg, models: c.Models(), st: scoring.State{Runtime: map[scoring.Key]scoring.Moments{}}}
}

// observe folds in a completed run of job j on model that took wall.
func (b *steerBook) observe(j Job, model string, wall time.Duration) {
	jt := JobType(j)
	k := scoring.Key{JobType: jt, GPUType: model}
	if !b.known(jt) {
		b.types = append(b.types, jt)
	}
	b.st.Runtime[k] = b.st.Runtime[k].Add(math.Log(max(wall.Seconds(), 1e-3)))
	b.costs = nil
}

// known reports whether a job of type jt has completed.
func (b *steerBook) known(jt string) bool {
	for _, m := range b.models {
		if b.st.Runtime[scoring.Key{JobType: jt, GPUType: m}].N > 0 {
			return true
		}
	}
	return false
}

// steering is the Snapshot.Steering of the state as it is.
func (b *steerBook) steering() []scheduler.SteerCost {
	if b.costs == nil {
		b.costs = make([]scheduler.SteerCost, 0, len(b.types)*len(b.models))
		for _, jt := range b.types {
			for _, m := range b.models {
				e := b.cfg.Estimate(b.st, jt, m)
				b.costs = append(b.costs, scheduler.SteerCost{JobType: jt, GPUModel: m, Cost: b.cfg.ExpectedCost(e),
					Runtime: scoring.RuntimeDuration(e.Mu)})
			}
		}
	}
	return b.costs
}
