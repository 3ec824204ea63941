package scheduler

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// attained sets a job's attained service in GPU-hours.
func attained(h float64) jobOpt { return func(j *Job) { j.AttainedGPUSeconds = h * 3600 } }

// lasCfg is a preset with the LAS knobs these tests are written for:
// levels at 1, 8 and 64 GPU-h, a 30-minute cooldown, and promoted jobs
// taking every other place.
func lasCfg(name string, opts ...func(*Config)) Config {
	return cfg(name, append([]func(*Config){func(c *Config) {
		c.LAS.Thresholds, c.LAS.PreemptCooldown, c.LAS.FreshPerPromoted = []float64{1, 8, 64}, Duration(30*time.Minute), 1
	}}, opts...)...)
}

// checkpoint marks a job as checkpointing.
func checkpoint() jobOpt { return func(j *Job) { j.Checkpoint = true } }

// TestLASOrder: priority classes first, then fresh jobs before those that
// have had more, by level; FIFO within a level.
func TestLASOrder(t *testing.T) {
	t.Parallel()
	s := mk(1, 1)
	s.Running = []Job{run(100, 9, time.Hour, time.Hour, ids(10))}
	s.Pending = []Job{
		pend(1, 1, 1, attained(70)),           // level 4
		pend(2, 2, 1, attained(2)),            // level 2
		pend(3, 3, 1, prio(PriorityLow)),      // level 1, older
		pend(4, 4, 1, prio(PriorityCritical)), // level 1
		pend(5, 5, 1, attained(0.5)),          // level 1
	}
	pl := Schedule(s, lasCfg("las-backfill", func(c *Config) { c.LAS.StarvationLimit = 0 }))
	if d := cmp.Diff([]int64{4, 5, 2, 1, 3}, queueOf(pl)); d != "" {
		t.Errorf("queue (-want +got):\n%s", d)
	}
	got := whyOf(pl)[2].Standing // job 2, third
	if want := "GPU-time level 2 of 4: has had 2.0 GPU-h"; got != want {
		t.Errorf("standing %q, want %q", got, want)
	}
}

// TestLASPromotion: jobs that waited past the starvation limit take every
// other place at the front, oldest first.
func TestLASPromotion(t *testing.T) {
	t.Parallel()
	s := mk(1, 1)
	s.Running = []Job{run(100, 9, time.Hour, time.Hour, ids(10))}
	s.Pending = []Job{
		pend(1, 1, 1, attained(70), ago(20*time.Hour)), // promoted
		pend(2, 2, 1, attained(9), ago(13*time.Hour)),  // promoted
		pend(3, 3, 1, ago(time.Hour)),
		pend(4, 4, 1, ago(time.Hour/2)),
	}
	pl := Schedule(s, lasCfg("las-backfill"))
	if d := cmp.Diff([]int64{1, 3, 2, 4}, queueOf(pl)); d != "" {
		t.Errorf("queue (-want +got):\n%s", d)
	}
	if got, want := whyOf(pl)[1].Standing, "GPU-time level 4 of 4: has had 70 GPU-h; promoted after 12 h waiting"; got != want {
		t.Errorf("standing %q, want %q", got, want)
	}
}

// TestLASDemotion: a fresh job stops a demoted checkpointing job (never one
// that does not checkpoint), not before the cooldown, not past the cap.
func TestLASDemotion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		running Job
		lost    PreemptionLoss
		want    []Preemption
	}{
		{"demoted checkpointing job", run(100, 9, 2*time.Hour, 10*time.Hour, ids(10), checkpoint()), PreemptionLoss{}, []Preemption{{
			JobID: 100, ForJobID: 1, Reason: "preempted for job 1, which needs 1 GPU: checkpointed and demoted to GPU-time level 2 of 4 (has had 2.0 GPU-h)", Rule: RuleLASDemotion}}},
		{"demoted, lower priority than the head", run(100, 9, 2*time.Hour, 10*time.Hour, ids(10), checkpoint(), prio(PriorityLow)), PreemptionLoss{}, []Preemption{{
			JobID: 100, ForJobID: 1, Reason: "preempted for job 1, which needs 1 GPU: checkpointed and demoted to GPU-time level 2 of 4 (has had 2.0 GPU-h)", Rule: RuleLASDemotion}}},
		// It would sort ahead of the head again and take its GPUs back.
		{"demoted, higher priority than the head", run(100, 9, 2*time.Hour, 10*time.Hour, ids(10), checkpoint(), prio(PriorityHigh)), PreemptionLoss{}, nil},
		{"does not checkpoint", run(100, 9, 2*time.Hour, 10*time.Hour, ids(10)), PreemptionLoss{}, nil},
		{"within the cooldown", run(100, 9, 20*time.Minute, 10*time.Hour, ids(10), checkpoint(), attained(5)), PreemptionLoss{}, nil},
		{"same level", run(100, 9, 40*time.Minute, 10*time.Hour, ids(10), checkpoint()), PreemptionLoss{}, nil},
		// Arrived 5 h 1 m ago, ran 2 h: slowdown 2.5 > 2, it has fallen behind.
		{"slowed down past the limit", run(100, 9, 2*time.Hour, 10*time.Hour, ids(10), checkpoint(),
			func(j *Job) { j.SubmittedAt = t0.Add(-5*time.Hour - time.Minute) }), PreemptionLoss{}, nil},
		{"lost share at the cap", run(100, 9, 2*time.Hour, 10*time.Hour, ids(10), checkpoint()), PreemptionLoss{LostGPUSeconds: 50, HeldGPUSeconds: 1000}, nil},
		// 300 lost + 140 committed + the victim's 60 s grace reach 5 % of 10,000.
		{"lost, committed and the victim's cost at the cap", run(100, 9, 2*time.Hour, 10*time.Hour, ids(10), checkpoint()),
			PreemptionLoss{LostGPUSeconds: 300, CommittedGPUSeconds: 140, HeldGPUSeconds: 10000}, nil},
		{"lost, committed and the victim's cost under the cap", run(100, 9, 2*time.Hour, 10*time.Hour, ids(10), checkpoint()),
			PreemptionLoss{LostGPUSeconds: 300, CommittedGPUSeconds: 139, HeldGPUSeconds: 10000}, []Preemption{{
				JobID: 100, ForJobID: 1, Reason: "preempted for job 1, which needs 1 GPU: checkpointed and demoted to GPU-time level 2 of 4 (has had 2.0 GPU-h)", Rule: RuleLASDemotion}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mk(1, 1)
			s.Running, s.Lost = []Job{tc.running}, tc.lost
			s.Pending = []Job{pend(1, 1, 1)}
			pl := Schedule(s, lasCfg("las-backfill", func(c *Config) { c.LAS.DemoteSlowdownLimit = 2 }))
			if d := cmp.Diff(tc.want, pl.Preemptions, cmpPlan); d != "" {
				t.Errorf("preemptions (-want +got):\n%s", d)
			}
		})
	}
}

// TestGittinsIndex: nearly certain runtimes give shortest remaining first;
// a job that has run past its type's usual runtime sinks (heavy tail).
func TestGittinsIndex(t *testing.T) {
	t.Parallel()
	short, long := gittinsIndex(math.Log(60), 0.05, 0), gittinsIndex(math.Log(3600), 0.05, 0)
	if !(short > long) || math.Abs(short*60-1) > 0.2 {
		t.Errorf("index of 60 s %v, of 3600 s %v: want about 1/60 and the shorter first", short, long)
	}
	fresh, old := gittinsIndex(math.Log(600), 2, 0), gittinsIndex(math.Log(600), 2, 36000)
	if !(fresh > old) {
		t.Errorf("heavy tail: fresh %v should rank before one that ran 10 h %v", fresh, old)
	}
	s := mk(1, 1)
	s.Running = []Job{run(100, 9, time.Hour, time.Hour, ids(10))}
	learned := func(sec float64) jobOpt {
		return func(j *Job) { j.Learned = RuntimeDist{LogMean: math.Log(sec), LogStd: 0.5, N: 10} }
	}
	s.Pending = []Job{pend(1, 1, 1, learned(7200)), pend(2, 2, 1, learned(60)), pend(3, 3, 1)}
	pl := Schedule(s, lasCfg("gittins-backfill"))
	if d := cmp.Diff([]int64{2, 1, 3}, queueOf(pl)); d != "" {
		t.Errorf("queue (-want +got):\n%s", d)
	}
}

// TestEstimatesLearned: with Estimates "learned" the user's estimate is
// ignored for backfill; the learned median is used, else the default.
func TestEstimatesLearned(t *testing.T) {
	t.Parallel()
	p := &pass{cfg: cfg("las-learned"), defDur: 4 * time.Hour}
	j := pend(1, 1, 1, est(time.Minute))
	if got := p.duration(&j); got != 4*time.Hour {
		t.Errorf("no history: %v, want the default", got)
	}
	j.Learned = RuntimeDist{LogMean: math.Log(600), LogStd: 1, N: MinLearnedRuns}
	if got := p.duration(&j); got.Round(time.Second) != 10*time.Minute {
		t.Errorf("learned: %v, want 10m", got)
	}
	p.cfg.Estimates = EstimatesUser
	if got := p.duration(&j); got != time.Minute {
		t.Errorf("user: %v, want 1m", got)
	}
}

// TestLearnedOverrun: a running job past its estimate is assumed to end now
// unless LAS.LearnedOverrun gives it the median of its learned runtime
// beyond what it has run; the head then reserves the node that frees first
// by that reckoning. Learned: median 1 h, σ 1; ran 2 h, so P(S > 2 h) ≈
// 0.244 and the conditional median is 3600·e^1.165 s ≈ 3 h 12 m: 72 more
// minutes, later than the other node's 30.
func TestLearnedOverrun(t *testing.T) {
	t.Parallel()
	learned := func(j *Job) { j.Learned = RuntimeDist{LogMean: math.Log(3600), LogStd: 1, N: 10} }
	for _, tc := range []struct {
		name    string
		overrun bool
		want    time.Time
	}{
		{"off: the overrun job ends now", false, t0},
		{"on: the other node, in 30 minutes", true, t0.Add(30 * time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := mk(2, 2)
			s.Running = []Job{
				run(100, 9, 2*time.Hour, -time.Hour, ids(10, 11), learned),
				run(101, 9, 10*time.Minute, 30*time.Minute, ids(20, 21)),
			}
			s.Pending = []Job{pend(1, 1, 2)}
			pl := Schedule(s, cfg("las-backfill", func(c *Config) { c.LAS.LearnedOverrun = tc.overrun }))
			if len(pl.Pending) != 1 || !pl.Pending[0].EstimatedStart.Equal(tc.want) {
				t.Fatalf("pending %+v, want the head at %v", pl.Pending, tc.want)
			}
		})
	}
	if left := (&pass{now: t0}).overrunLeft(&Job{GPUCount: 2, StartedAt: t0.Add(-2 * time.Hour),
		Learned: RuntimeDist{LogMean: math.Log(3600), LogStd: 1, N: 10}}); math.Abs(time.Duration(left).Minutes()-72) > 2 {
		t.Errorf("expected %v more, want about 72 minutes", time.Duration(left))
	}
}
