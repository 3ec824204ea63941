package scheduler

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// DefaultStopGrace is how long a checkpointing job is given to save its
// state and exit when it is preempted, unless it asks for another grace.
const DefaultStopGrace = 60 * time.Second

// LASConfig tunes the attained-service policies (las and gittins, after
// Tiresias's 2D-LAS): a job's attained service is GPUs × time it has run
// (over all its runs); the queue is split into discretized levels by that
// service, and a fresh job goes before one that has already had much.
type LASConfig struct {
	// Thresholds are the level boundaries in GPU-hours of attained service,
	// ascending: len(Thresholds)+1 levels ("GPU-time level 1 of 4" is the first).
	Thresholds []float64 `json:"thresholds_gpu_hours"`
	// StarvationLimit promotes a pending job that has waited this long
	// (since it arrived or was last preempted) ahead of every level; 0
	// never promotes.
	StarvationLimit Duration `json:"starvation_limit"`
	// CheckpointPreemption lets the head of the queue stop a running job
	// that checkpoints (Job.Checkpoint) and has been demoted to a later
	// level than the head's: the job saves, exits
	// and resumes later with its attained service kept. Jobs that do not
	// checkpoint are only preempted under Config.Preemption's rules.
	CheckpointPreemption bool `json:"checkpoint_preemption"`
	// FreshPerPromoted: promoted jobs take one place at the front of the
	// queue, then this many others in level order, and so on (0 counts
	// as 1).
	FreshPerPromoted int `json:"fresh_per_promoted"`
	// PreemptCooldown: a job is stopped by demotion only after running at
	// least this long since its last start, so at most once per cooldown.
	PreemptCooldown Duration `json:"preempt_cooldown"`
	// MaxLostShare caps preemption of every kind: while Snapshot.Lost's
	// lost share of the GPU time held is at or above it, nothing is
	// preempted. 0: no cap.
	MaxLostShare float64 `json:"max_lost_share"`
	// LearnedOverrun: a running job that has outrun its estimate is
	// expected to run on for the median of its learned runtime
	// distribution beyond what it has run (Job.Learned, at least
	// MinLearnedRuns runs), not to end now, when the head's reservation
	// and backfill are planned.
	LearnedOverrun bool `json:"learned_overrun"`
	// DemoteSlowdownLimit protects a job that has already fallen behind:
	// it is stopped by demotion only while its slowdown so far (time since
	// it arrived over wall time run) is at most this. Without it a long
	// job is stopped again after every cooldown and crawls (runs of 15
	// minutes between waits of 12 hours), which stretches the makespan.
	// 0 (the default): no limit; internal/sim/README.md has what 2 and 3
	// do on the traces.
	DemoteSlowdownLimit float64 `json:"demote_slowdown_limit"`
}

// DefaultLAS is the attained-service configuration the presets start from.
func DefaultLAS() LASConfig {
	return LASConfig{
		Thresholds:           []float64{0.5, 4, 32},
		StarvationLimit:      Duration(12 * time.Hour),
		FreshPerPromoted:     3,
		CheckpointPreemption: true,
		PreemptCooldown:      Duration(15 * time.Minute),
		MaxLostShare:         0.05,
		LearnedOverrun:       true,
	}
}

// validate lists what is wrong with c.
func (c LASConfig) validate() []error {
	var errs []error
	for i, t := range c.Thresholds {
		if !(t > 0) || math.IsInf(t, 0) || (i > 0 && t <= c.Thresholds[i-1]) {
			errs = append(errs, keyErr("las.thresholds_gpu_hours", "las.thresholds_gpu_hours must be positive and ascending"))
			break
		}
	}
	if c.FreshPerPromoted < 0 {
		errs = append(errs, keyErr("las.fresh_per_promoted", "las.fresh_per_promoted must not be negative"))
	}
	if c.StarvationLimit < 0 {
		errs = append(errs, keyErr("las.starvation_limit", "las.starvation_limit must not be negative"))
	}
	if c.PreemptCooldown < 0 {
		errs = append(errs, keyErr("las.preempt_cooldown", "las.preempt_cooldown must not be negative"))
	}
	if c.DemoteSlowdownLimit < 0 || math.IsNaN(c.DemoteSlowdownLimit) || math.IsInf(c.DemoteSlowdownLimit, 0) {
		errs = append(errs, keyErr("las.demote_slowdown_limit", "las.demote_slowdown_limit %v must be 0 (no limit) or positive", c.DemoteSlowdownLimit))
	}
	if c.MaxLostShare < 0 || c.MaxLostShare > 1 || math.IsNaN(c.MaxLostShare) {
		errs = append(errs, keyErr("las.max_lost_share", "las.max_lost_share %v must be between 0 and 1", c.MaxLostShare))
	}
	return errs
}

// attained is a job's attained service in GPU-seconds at now: its earlier
// runs plus, when running, GPUs × time since StartedAt.
func (p *pass) attained(j *Job) float64 {
	a := cleanUsage(j.AttainedGPUSeconds)
	if !j.StartedAt.IsZero() && len(j.GPUs) > 0 {
		a += float64(len(j.GPUs)) * max(0, p.now.Sub(j.StartedAt)).Seconds()
	}
	return a
}

// level is the 0-based LAS level of an attained service in GPU-seconds.
func (p *pass) level(gpuSeconds float64) int {
	h := gpuSeconds / 3600
	n, _ := slices.BinarySearchFunc(p.cfg.LAS.Thresholds, h, func(t, h float64) int {
		if t <= h {
			return -1
		}
		return 1
	})
	return n
}

// waitedSince is when a pending job joined the queue this time.
func waitedSince(j *Job) time.Time {
	if j.PreemptedAt.After(j.SubmittedAt) {
		return j.PreemptedAt
	}
	return j.SubmittedAt
}

// promoted says whether a pending job has waited past the starvation limit.
func (p *pass) promoted(j *Job) bool {
	l := time.Duration(p.cfg.LAS.StarvationLimit)
	return l > 0 && p.now.Sub(waitedSince(j)) >= l
}

// lasKey is a pending job's place under las: its level (FIFO within a
// level: ties fall to SubmittedAt); under gittins, within the level, the
// higher Gittins index first. Promotion is applied after sorting (zipper).
func (p *pass) lasKey(j *Job) float64 {
	lvl := p.level(j.AttainedGPUSeconds)
	if p.cfg.Policy == PolicyGittins {
		return float64(lvl) + 1/(1+p.gittinsOf(j))
	}
	return float64(lvl)
}

// lasSpan is more than any lasKey: Priority × lasSpan puts priority
// classes before levels.
func (p *pass) lasSpan() float64 { return float64(len(p.cfg.LAS.Thresholds) + 2) }

// Preempts says whether a pass under c may preempt at all: Preemption, or
// checkpoint preemption under an attained-service policy.
func (c Config) Preempts() bool {
	return c.Preemption || (c.isLAS() && c.LAS.CheckpointPreemption)
}

// isLAS says whether the policy orders by attained service.
func (c Config) isLAS() bool { return c.Policy == PolicyLAS || c.Policy == PolicyGittins }

// lostCapped says whether the GPU time lost to preemption would reach
// LASConfig.MaxLostShare of the GPU time held, counting what is lost, what
// preemptions already decided will lose but is not counted yet
// (Lost.CommittedGPUSeconds: reloads to come) and extra, the cost of the
// victims about to be chosen (0 to ask whether any preemption may happen).
// Under las and gittins a preemption that would take the share to the cap
// is not made; other policies check only before choosing (their victims
// are stopped for priority, which a young window's small total of GPU time
// held must not forbid).
func (p *pass) lostCapped(extra float64) bool {
	c, l := p.cfg.LAS.MaxLostShare, p.snap.Lost
	lost := cleanUsage(l.LostGPUSeconds) + cleanUsage(l.CommittedGPUSeconds) + extra
	return c > 0 && l.HeldGPUSeconds > 0 && lost >= c*l.HeldGPUSeconds
}

// demotable says whether a running job may be stopped for the pending
// head by LAS demotion: it checkpoints, has run at least the cooldown since
// its last start, is of no higher priority than the head (a higher class
// would sort ahead of the head again and take its GPUs back) and is in a
// later level than the head.
func (p *pass) demotable(r *Job, head *Job) bool {
	if !p.cfg.isLAS() || !p.cfg.LAS.CheckpointPreemption || !r.Checkpoint || r.Priority > head.Priority ||
		p.now.Sub(r.StartedAt) < time.Duration(p.cfg.LAS.PreemptCooldown) {
		return false
	}
	if l := p.cfg.LAS.DemoteSlowdownLimit; l > 0 && slowdownSoFar(r, p.attained(r), p.now) > l {
		return false
	}
	hl := p.level(head.AttainedGPUSeconds)
	if p.promoted(head) {
		hl = -1
	}
	return p.level(p.attained(r)) > hl
}

// stopGrace is the grace a checkpointing job is given to save and exit.
func stopGrace(j *Job) time.Duration {
	if j.StopGrace > 0 {
		return j.StopGrace
	}
	return DefaultStopGrace
}

// standing words a job's LAS standing for explanations: "GPU-time level 2 of 4:
// has had 38 GPU-h; promoted after 6 h waiting". Empty for other policies.
func (p *pass) standing(j *Job) string {
	if !p.cfg.isLAS() {
		return ""
	}
	s := fmt.Sprintf("GPU-time level %d of %d: has had %s GPU-h", p.level(j.AttainedGPUSeconds)+1,
		len(p.cfg.LAS.Thresholds)+1, hoursWords(j.AttainedGPUSeconds/3600))
	if p.promoted(j) {
		s += "; promoted after " + hoursWords(time.Duration(p.cfg.LAS.StarvationLimit).Hours()) + " h waiting"
	}
	return s
}

// hoursWords writes hours with one decimal below 10, whole above.
func hoursWords(h float64) string {
	if h < 10 {
		return fmt.Sprintf("%.1f", h)
	}
	return fmt.Sprintf("%.0f", h)
}

// zipper interleaves the promoted jobs (those that waited past the
// starvation limit), oldest first, with the others in LAS order: the
// first promoted job, then FreshPerPromoted others, and so on. Starving
// jobs thus take one place in FreshPerPromoted+1 at the front of the
// queue, and however long the backlog, fresh jobs keep the others.
func (p *pass) zipper(q []*qjob) []*qjob {
	if !p.cfg.isLAS() || p.cfg.LAS.StarvationLimit <= 0 {
		return q
	}
	var prom, rest []*qjob
	for _, qj := range q {
		if p.promoted(qj.job) {
			prom = append(prom, qj)
		} else {
			rest = append(rest, qj)
		}
	}
	if len(prom) == 0 {
		return q
	}
	slices.SortStableFunc(prom, func(a, b *qjob) int {
		if c := waitedSince(a.job).Compare(waitedSince(b.job)); c != 0 {
			return c
		}
		return cmp.Compare(a.job.ID, b.job.ID)
	})
	out := q[:0:0]
	k := max(1, p.cfg.LAS.FreshPerPromoted)
	pi, ri := 0, 0
	for pi < len(prom) || ri < len(rest) {
		if pi < len(prom) {
			out = append(out, prom[pi])
			pi++
		}
		for n := 0; n < k && ri < len(rest); n++ {
			out = append(out, rest[ri])
			ri++
		}
	}
	return out
}

// slowdownSoFar is a running job's time since it arrived over the wall time
// it has run (attained GPU-seconds over its GPUs, all runs): 1 for a job
// that never waited nor was stopped, 3 for one that spent two thirds of its
// time in the queue.
func slowdownSoFar(r *Job, attainedGPUSeconds float64, now time.Time) float64 {
	served := attainedGPUSeconds / float64(max(1, len(r.GPUs)))
	if !(served > 0) {
		return 1
	}
	return max(0, now.Sub(r.SubmittedAt).Seconds()) / served
}
