package scheduler

import (
	"errors"
	"fmt"
	"time"
)

// Policy names.
const (
	PolicyFCFS      = "fcfs"      // first come, first served
	PolicyPriority  = "priority"  // priority with aging
	PolicyFairShare = "fairshare" // Slurm-style multifactor: fair share, age, priority, size
	PolicySJF       = "sjf"       // shortest (estimated) job first
	PolicyLAS       = "las"       // least attained service in discretized queues (Tiresias 2D-LAS)
	PolicyGittins   = "gittins"   // Gittins index from the learned runtime distribution, else las
)

// Config is the run-time policy of the scheduler. It is stored as JSON in
// the settings table and changed through PUT /orchestrator/policies.
type Config struct {
	Policy string `json:"policy"` // fcfs, priority, fairshare, sjf, las or gittins

	Backfill   bool `json:"backfill"`   // EASY backfill behind the head job's reservation
	Preemption bool `json:"preemption"` // higher-priority jobs may stop preemptible lower-priority ones

	// AgingPerHour is how many priority levels a waiting job gains per hour
	// (priority and fairshare policies), so no job starves.
	AgingPerHour float64 `json:"aging_per_hour"`
	// MinRuntime protects a job that just started from preemption.
	MinRuntime Duration `json:"min_runtime"`
	// DefaultDuration is assumed for jobs with no estimate.
	DefaultDuration Duration `json:"default_duration"`
	// Estimates says which runtime estimate backfill and ETAs use: "user"
	// (or empty): the job's EstimatedDuration, else its learned median;
	// "learned": the learned median (Job.Learned with at least
	// MinLearnedRuns runs) and never what the user announced. Either falls
	// back to DefaultDuration.
	Estimates string `json:"estimates,omitempty"`

	// FairShare tunes the multifactor priority of the fairshare policy.
	FairShare FairShareConfig `json:"fair_share"`

	// IdlePolicy gives idle GPUs back (idle.go); its keys are top-level.
	IdlePolicy
	// LAS tunes the attained-service policies (las, gittins) and the
	// preemption of checkpointing jobs.
	LAS LASConfig `json:"las"`
	// Retention says how long history is kept (retention.go).
	Retention RetentionConfig `json:"retention"`
	// Leases bounds how long leases hold GPUs (leases.go).
	Leases LeasePolicy `json:"leases"`
	// TimeLimit gives jobs' time limits a default and a maximum
	// (time_limit.go).
	TimeLimit TimeLimitPolicy `json:"time_limit"`
	// BookingLimits bound what one member may book (booking_limits.go);
	// left out, the server's defaults apply.
	BookingLimits BookingLimits `json:"booking_limits,omitzero"`
	// CostPolicy prices GPU time for accounting (cost.go); its keys are
	// top-level.
	CostPolicy
	// GPUMemoryOverrun says what happens to a share job over its GPU
	// memory (share_policy.go); left out: warn, stop after 60 s.
	GPUMemoryOverrun MemoryOverrunPolicy `json:"gpu_memory_overrun,omitzero"`
	// SessionGPUShare is the share of a shared GPU sessions take by
	// default (SessionShare); 0: whole GPUs.
	SessionGPUShare float64 `json:"session_gpu_share,omitempty"`
}

// FairShareConfig are the weights of Slurm's multifactor priority: each
// factor is in [0, 1] and the job's score is their weighted sum.
type FairShareConfig struct {
	HalfLife        Duration `json:"half_life"`        // usage decay half-life
	WeightFairShare float64  `json:"weight_fairshare"` // 2^(-usage/share)
	WeightAge       float64  `json:"weight_age"`       // wait time over MaxAge, capped at 1
	WeightPriority  float64  `json:"weight_priority"`  // (priority-1)/3
	WeightSize      float64  `json:"weight_size"`      // small jobs first: 1 - gpus/largest node
	MaxAge          Duration `json:"max_age"`          // wait at which the age factor reaches 1
	// Entitled measures usage against what the share entitles a principal
	// to of the cluster's capacity (usable GPUs × half-life / ln 2), and
	// counts only use beyond it: a user who ran one long job on less than
	// their share of the cluster is not pushed behind everyone (see the
	// simulator's README, "Why fair share was unfair").
	Entitled bool `json:"entitled,omitempty"`
}

// Duration is a time.Duration that reads and writes JSON as "90s", "2h".
type Duration time.Duration

// MarshalText writes the duration as Go does ("1h30m0s").
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads "90s", "2h30m" and the like.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration like 90s or 2h", b)
	}
	*d = Duration(v)
	return nil
}

// DefaultConfig is the server's default policy, chosen by replaying traces
// (internal/sim/README.md): least attained service in four levels
// (DefaultLAS) with backfill, starving jobs promoted, checkpointing jobs
// preempted when demoted (cooldown, at most 5 % of GPU time lost), and
// preemption of lower-priority work as before. It needs no runtime
// estimate from users: backfill uses theirs when given, else the learned
// one, else DefaultDuration. The fair-share weights stay for the fairshare
// presets.
func DefaultConfig() Config {
	return Config{
		Policy:          PolicyLAS,
		Backfill:        true,
		Preemption:      true,
		AgingPerHour:    0.25,
		MinRuntime:      Duration(10 * time.Minute),
		DefaultDuration: Duration(4 * time.Hour),
		FairShare: FairShareConfig{
			HalfLife:        Duration(7 * 24 * time.Hour),
			WeightFairShare: 10000,
			WeightAge:       1000,
			WeightPriority:  5000,
			WeightSize:      100,
			MaxAge:          Duration(7 * 24 * time.Hour),
		},
		LAS:       DefaultLAS(),
		Retention: DefaultRetention(),
		Leases:    DefaultLeases(),
	}
}

// Validate reports every problem with c in one error whose sentences say
// what to change.
func (c Config) Validate() error {
	var errs []error
	switch c.Policy {
	case PolicyFCFS, PolicyPriority, PolicyFairShare, PolicySJF, PolicyLAS, PolicyGittins:
	default:
		errs = append(errs, keyErr("policy", "policy %q is not one of fcfs, priority, fairshare, sjf, las, gittins", c.Policy))
	}
	errs = append(errs, c.LAS.validate()...)
	errs = append(errs, c.GPUMemoryOverrun.validate()...)
	errs = append(errs, validateSessionShare(c.SessionGPUShare)...)
	if c.Estimates != "" && c.Estimates != EstimatesUser && c.Estimates != EstimatesLearned {
		errs = append(errs, keyErr("estimates", "estimates %q is not one of user, learned", c.Estimates))
	}
	if c.AgingPerHour < 0 {
		errs = append(errs, keyErr("aging_per_hour", "aging_per_hour must not be negative"))
	}
	if c.MinRuntime < 0 {
		errs = append(errs, keyErr("min_runtime", "min_runtime must not be negative"))
	}
	if c.DefaultDuration <= 0 {
		errs = append(errs, keyErr("default_duration", "default_duration must be positive"))
	}
	fs := c.FairShare
	if fs.HalfLife <= 0 {
		errs = append(errs, keyErr("fair_share.half_life", "fair_share.half_life must be positive"))
	}
	if fs.MaxAge <= 0 {
		errs = append(errs, keyErr("fair_share.max_age", "fair_share.max_age must be positive"))
	}
	for _, w := range []struct {
		key string
		v   float64
	}{{"weight_fairshare", fs.WeightFairShare}, {"weight_age", fs.WeightAge}, {"weight_priority", fs.WeightPriority}, {"weight_size", fs.WeightSize}} {
		if w.v < 0 {
			errs = append(errs, keyErr("fair_share."+w.key, "fair_share.%s must not be negative", w.key))
		}
	}
	errs = append(errs, c.IdlePolicy.validate()...) // idle GPUs given back
	errs = append(errs, c.Retention.validate()...)
	errs = append(errs, c.Leases.validate()...)
	errs = append(errs, c.TimeLimit.validate()...)
	errs = append(errs, c.BookingLimits.validate()...)
	errs = append(errs, c.CostPolicy.validate()...)
	return errors.Join(errs...)
}
