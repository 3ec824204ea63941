package scoring

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Limits on what an observation or a request may carry.
const (
	MaxNameLen    = 200     // job and GPU type names
	MaxColocated  = 64      // co-located job types
	MaxCandidates = 64      // candidate GPU types
	MaxRuntimeS   = 1 << 30 // about 34 years: anything longer is a unit error
)

// Observation is one measured run: job type, GPU type, runtime, and the job
// types that shared its node while it ran.
type Observation struct {
	JobType   string
	GPUType   string
	RuntimeS  float64
	Colocated []string
}

// Validate says, in a sentence, what makes the observation unusable; the
// model must never see one that fails.
func (o Observation) Validate() error {
	if err := checkName("job_type", o.JobType); err != nil {
		return err
	}
	if err := checkName("gpu_type", o.GPUType); err != nil {
		return err
	}
	if math.IsNaN(o.RuntimeS) || math.IsInf(o.RuntimeS, 0) || o.RuntimeS <= 0 || o.RuntimeS > MaxRuntimeS {
		return fmt.Errorf("measured_runtime_s must be a finite number of seconds > 0 and ≤ %d, not %v", int64(MaxRuntimeS), o.RuntimeS)
	}
	return checkNames("colocated_job_types", o.Colocated, MaxColocated)
}

func checkName(field, s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("%s is required and may not be blank", field)
	case len(s) > MaxNameLen:
		return fmt.Errorf("%s is longer than %d bytes", field, MaxNameLen)
	}
	return nil
}

func checkNames(field string, names []string, most int) error {
	if len(names) > most {
		return fmt.Errorf("%s has %d entries; at most %d", field, len(names), most)
	}
	for i, n := range names {
		if err := checkName(fmt.Sprintf("%s[%d]", field, i), n); err != nil {
			return err
		}
	}
	return nil
}

// Distinct returns the names sorted with duplicates removed.
func Distinct(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

// Learned is what one observation changes: the new runtime moments of its
// (job type, GPU type), and the slowdown sample to fold into the
// interference moments of (job type, each co-located type).
type Learned struct {
	Runtime Moments
	// Slowdown is runtime / (the estimate before this run) − 1; meaningful
	// only when HasSlowdown (the run shared its node and the pair had been
	// observed before, so there was an estimate to compare with).
	Slowdown    float64
	HasSlowdown bool
}

// Learn folds o into before, the moments of (o.JobType, o.GPUType). Every
// run counts toward the runtime estimate, co-located or not; the slowdown
// is measured against the estimate as it stood, so observations must be
// applied in one order per key for replicas to agree.
func (c Config) Learn(before Moments, o Observation) Learned {
	out := Learned{Runtime: before.Add(math.Log(o.RuntimeS))}
	if len(o.Colocated) > 0 && before.N > 0 {
		est := c.Posterior(before, Prior{}) // the prior is unused once there is data
		out.Slowdown, out.HasSlowdown = o.RuntimeS/est.Mu-1, true
	}
	return out
}

// Interference is the learned slowdown of jobType beside the co-located
// job types: the sum of the positive mean slowdowns of each distinct one
// (two noisy neighbours hurt more than one), and those above
// AvoidThreshold, sorted. Unknown pairs add nothing.
func (c Config) Interference(st State, jobType string, colocated []string) (float64, []string) {
	var sum float64
	var avoid []string
	for _, b := range Distinct(colocated) {
		m, ok := st.Interference[Pair{jobType, b}]
		if !ok || m.N == 0 {
			continue
		}
		if m.Mean > 0 {
			sum += m.Mean
		}
		if m.Mean > c.AvoidThreshold {
			avoid = append(avoid, b)
		}
	}
	return sum, avoid
}
