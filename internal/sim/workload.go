package sim

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// PrepareOptions say how a trace becomes the workload every policy replays.
type PrepareOptions struct {
	// Limit keeps only the first Limit jobs by arrival; 0 keeps all.
	Limit int
	// Load is the offered load to scale arrival times to; 0 keeps the
	// trace's own arrival times.
	Load float64
	// EstimateNoise is σ of the log-normal noise on the runtime estimate
	// a job without its own estimate announces: runtime × e^(σ·z), z
	// standard normal. 0 announces the exact runtime.
	EstimateNoise float64
	// Seed drives the estimate noise and the draw of checkpointing jobs.
	Seed uint64
	// NoEstimates: jobs announce no runtime at all.
	NoEstimates bool
	// Checkpointable is the share of jobs (0–1) that checkpoint, drawn per
	// job from a PCG seeded with (Seed, job ID, 2).
	Checkpointable float64
	// RestartOverhead is the time a checkpointed job spends, on each
	// resumed run, reloading before it makes progress again (GPU time
	// lost). 0: DefaultRestartOverhead.
	RestartOverhead time.Duration
	// NoSteering turns steering off on a cluster of several GPU models
	// (to measure what it buys); Scoring configures it (zero: the
	// scoring model's defaults).
	NoSteering bool
	Scoring    scoring.Config
	// MIGStretch: on a cluster with MIG, a job on a slice smaller than
	// the share of a GPU it used runs Share/fraction times its runtime
	// (compute-bound); otherwise its runtime is unchanged (it fits).
	MIGStretch bool
}

// DefaultRestartOverhead is a resumed job's reload time unless told.
const DefaultRestartOverhead = 2 * time.Minute

// Workload is a trace prepared for one cluster.
type Workload struct {
	// Jobs are sorted by arrival (then ID); the first arrives at 0.
	Jobs []Job
	// Cluster is the simulated cluster.
	Cluster Cluster
	// OfferedLoad is the offered load of Jobs on Cluster (see OfferedLoad);
	// 0 when undefined.
	OfferedLoad float64
	// Scale is the factor arrival offsets were multiplied by (1: none).
	Scale float64
	// Limited counts the jobs Limit left out.
	Limited int
	// TooLarge counts the jobs skipped for asking more GPUs than the
	// whole cluster has.
	TooLarge int
	// MultiNode counts the jobs larger than one node but not than the
	// cluster: they may span nodes (Job.MultiNode).
	MultiNode int
	// Signals are the client agent's signals to replay as holds
	// (signals.go); nil: none.
	Signals *Signals
	// Steer: the cluster has several GPU models and the core steers jobs
	// between them by what the scoring model (configuration Scoring)
	// learned from the jobs finished so far in the replay (steer.go).
	Steer   bool
	Scoring scoring.Config
	// RestartOverhead is what each resumed run of a checkpointed job spends
	// before making progress again.
	RestartOverhead time.Duration
	// Checkpointable is the share of jobs drawn to checkpoint.
	Checkpointable float64
	// SliceJobs counts the jobs that ask for a MIG slice (assignSlices);
	// MIGStretch is PrepareOptions.MIGStretch.
	SliceJobs  int
	MIGStretch bool
}

// Prepare turns jobs (not modified) into the workload for c: it sorts them
// by arrival, skips jobs larger than the cluster, lets jobs larger than a
// node span nodes, keeps the first Limit, moves the first arrival to 0,
// draws estimate noise, scales arrivals to the target load, and, on a
// cluster with MIG, makes fractional jobs ask for slices (assignSlices).
func Prepare(jobs []Job, c Cluster, opt PrepareOptions) (*Workload, error) {
	if opt.Limit < 0 || opt.Load < 0 || opt.EstimateNoise < 0 || opt.RestartOverhead < 0 {
		return nil, errors.New("limit, load, estimate noise and restart overhead must not be negative")
	}
	if opt.Checkpointable < 0 || opt.Checkpointable > 1 {
		return nil, errors.New("the checkpointable share must be between 0 and 1")
	}
	w := &Workload{Cluster: c, Scale: 1, RestartOverhead: opt.RestartOverhead, Checkpointable: opt.Checkpointable,
		Steer: len(c.Models()) > 1 && !opt.NoSteering, Scoring: opt.Scoring, MIGStretch: opt.MIGStretch}
	if w.Scoring == (scoring.Config{}) {
		w.Scoring = scoring.DefaultConfig()
	}
	if err := w.Scoring.Validate(); err != nil {
		return nil, err
	}
	if w.RestartOverhead == 0 {
		w.RestartOverhead = DefaultRestartOverhead
	}
	for _, j := range jobs {
		switch {
		case j.GPUs > c.GPUs():
			w.TooLarge++
			continue
		case j.GPUs > c.MaxGPUsPerNode():
			j.MultiNode = true
		}
		w.Jobs = append(w.Jobs, j)
	}
	slices.SortStableFunc(w.Jobs, func(a, b Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID))
	})
	if opt.Limit > 0 && len(w.Jobs) > opt.Limit {
		w.Limited = len(w.Jobs) - opt.Limit
		w.Jobs = w.Jobs[:opt.Limit]
	}
	if len(w.Jobs) == 0 {
		return nil, errors.New("no job left to replay")
	}
	first := w.Jobs[0].Submit
	for i := range w.Jobs {
		j := &w.Jobs[i]
		j.Submit -= first
		if j.MultiNode {
			w.MultiNode++
		}
		if j.Estimate == 0 && opt.EstimateNoise > 0 {
			z := rand.New(rand.NewPCG(opt.Seed, uint64(j.ID))).NormFloat64()
			j.Estimate = max(time.Second, time.Duration(float64(j.Runtime)*math.Exp(opt.EstimateNoise*z)))
		}
		j.NoEstimate = opt.NoEstimates
		if opt.Checkpointable > 0 {
			j.Checkpoint = rand.New(rand.NewPCG(opt.Seed, uint64(j.ID)<<1|1)).Float64() < opt.Checkpointable
		}
	}
	if opt.Load > 0 {
		f, err := ScaleToLoad(w.Jobs, c.GPUs(), opt.Load)
		if err != nil {
			return nil, err
		}
		w.Scale = f
	}
	w.OfferedLoad, _ = OfferedLoad(w.Jobs, c.GPUs())
	// After the load: a slice job offers the whole GPU it would take
	// without MIG, so that a replay without the layout sees the same arrivals.
	w.SliceJobs = assignSlices(w.Jobs, c) + assignShares(w.Jobs, c)
	return w, nil
}
