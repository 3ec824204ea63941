package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// LearnedSummary says how learned estimates compare with the truth.
type LearnedSummary struct {
	// Learned counts jobs whose job type had been observed before they
	// arrived; Defaulted counts those that announced the default instead.
	Learned, Defaulted int
	// Types is the number of distinct job types.
	Types int
	// MedianLogError is the median of |ln(estimate / runtime)| over the
	// learned jobs (0.69 ≈ off by 2×); MedianLogErrorAll is over all jobs.
	MedianLogError, MedianLogErrorAll float64
	// Underestimated is the share of all jobs whose estimate is shorter
	// than their runtime.
	Underestimated float64
}

// JobType is the job type the simulator gives a trace job for learning: the
// traces carry none, so a job's request shape (GPUs and priority) stands for
// it, as a team's recurring jobs tend to repeat their shape.
func JobType(j Job) string { return fmt.Sprintf("%dgpu-p%d", j.GPUs, j.Priority) }

// LearnEstimates replaces every job's announced estimate with what the
// scoring model (internal/scoring, configuration c) would have learned by
// its arrival: the posterior runtime of its job type (JobType) on the
// cluster's GPU model from the jobs that had finished by then. A replay
// cannot know in advance when a job finishes under each policy, so a job
// counts as finished at arrival + runtime (the earliest it could have), the
// same observations for every policy; the estimate is fixed at arrival. A
// job type never seen before announces def (the scheduler's default).
func LearnEstimates(w *Workload, c scoring.Config, def time.Duration) (LearnedSummary, error) {
	if err := c.Validate(); err != nil {
		return LearnedSummary{}, err
	}
	if def <= 0 {
		return LearnedSummary{}, fmt.Errorf("default duration %v must be positive", def)
	}
	gpu := w.Cluster.Model
	var sum LearnedSummary
	var errs, errsAll []float64
	under := 0
	types := map[string]bool{}
	learnByArrival(w, func(j *Job, st scoring.State) {
		jt := JobType(*j)
		types[jt] = true
		learned := st.Runtime[scoring.Key{JobType: jt, GPUType: gpu}].N > 0
		if learned {
			e := c.Estimate(st, jt, gpu)
			j.Estimate = max(time.Second, time.Duration(math.Min(e.Mu, scoring.MaxRuntimeS)*float64(time.Second)))
			sum.Learned++
		} else {
			j.Estimate = def
			sum.Defaulted++
		}
		le := math.Abs(math.Log(j.Estimate.Seconds() / max(j.Runtime.Seconds(), 1e-3)))
		errsAll = append(errsAll, le)
		if learned {
			errs = append(errs, le)
		}
		if j.Estimate < j.Runtime {
			under++
		}
	})
	sum.Types = len(types)
	slices.Sort(errs)
	slices.Sort(errsAll)
	sum.MedianLogError, sum.MedianLogErrorAll = median(errs), median(errsAll)
	sum.Underestimated = float64(under) / float64(len(w.Jobs))
	return sum, nil
}

// LearnDistributions sets every job's Learned runtime distribution: what
// the scoring model (configuration c) would have learned for its job type
// (JobType) on the cluster's GPU model from the jobs finished by its
// arrival, each counted as finished at arrival + runtime, as in
// LearnEstimates. Policies with Estimates "learned" and gittins read it;
// what jobs announce is not changed.
func LearnDistributions(w *Workload, c scoring.Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	gpu := w.Cluster.Model
	learnByArrival(w, func(j *Job, st scoring.State) {
		jt := JobType(*j)
		if st.Runtime[scoring.Key{JobType: jt, GPUType: gpu}].N == 0 {
			j.Learned = scheduler.RuntimeDist{}
			return
		}
		e := c.Estimate(st, jt, gpu)
		j.Learned = scheduler.RuntimeDist{LogMean: e.LogMean, LogStd: math.Sqrt(e.Noise), N: e.N}
	})
	return nil
}

// learnByArrival calls visit for every job in arrival order with the
// runtimes the scoring model has observed by then: those of the jobs
// finished by the job's arrival, each counted as finished at its own
// arrival + runtime (the earliest it could have), on the cluster's GPU model.
func learnByArrival(w *Workload, visit func(j *Job, st scoring.State)) {
	gpu := w.Cluster.Model
	ends := make([]int, len(w.Jobs)) // job indices by earliest end
	for i := range ends {
		ends[i] = i
	}
	sort.SliceStable(ends, func(a, b int) bool {
		ja, jb := w.Jobs[ends[a]], w.Jobs[ends[b]]
		return ja.Submit+ja.Runtime < jb.Submit+jb.Runtime
	})
	st := scoring.State{Runtime: map[scoring.Key]scoring.Moments{}}
	next := 0
	for i := range w.Jobs {
		j := &w.Jobs[i]
		for ; next < len(ends); next++ {
			done := w.Jobs[ends[next]]
			if done.Submit+done.Runtime > j.Submit {
				break
			}
			k := scoring.Key{JobType: JobType(done), GPUType: gpu}
			st.Runtime[k] = st.Runtime[k].Add(math.Log(max(done.Runtime.Seconds(), 1e-3)))
		}
		visit(j, st)
	}
}
