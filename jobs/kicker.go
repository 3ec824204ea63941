package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// PassDone is the payload of the scheduler channel's signal that a pass
// committed.
const PassDone = "pass-done"

// kickStale is how long a kicker waits for a queued pass to report before
// it stops waiting (the pass was lost, or ran on another replica).
const kickStale = 5 * time.Second

// Kicker turns change signals into scheduling passes. Every change that can
// let a job start sends NOTIFY in its own transaction (a job submitted,
// released, canceled or re-prioritised; a node back up; a GPU healed or
// freed from outside use; a booking; a policy change), so the signal
// arrives only once the change is committed, and a pass queued after it
// sees it. Bursts coalesce without a timer: while a pass this kicker queued
// has not reported done, further signals only mark the cluster dirty, and
// one more pass is queued when it reports. A lone change costs one pass at
// once; a thousand submissions cost a handful.
//
// Under a storm of changes the next pass waits after the last one
// stormGapFactor times as long as that one took (queued to done; at least
// stormGapMin, at most stormGapMax), so passes take at most a quarter of a
// core while scripts submit in bulk (a pass over 10,000 pending jobs takes
// tens of milliseconds) and the submissions keep the rest.
type Kicker struct {
	Listener *models.Listener
	River    *river.Client[pgx.Tx]
	Logger   *slog.Logger
}

// Under a storm, the wait after a pass is stormGapFactor times what the
// pass took, at least stormGapMin and at most stormGapMax. Measured with
// BenchmarkSubmitScheduling: a factor of 1 gave 4.3–5.9 k submissions/s, 3
// gives 5.8–6.0 k. The minimum caps a storm of short passes (a small
// queue, scripts submitting in loops) at 20 passes a second.
const (
	stormGapFactor = 3
	stormGapMin    = 50 * time.Millisecond
	stormGapMax    = time.Second
)

// kickTopics are the change signals that can let a job start.
var kickTopics = []string{models.Topic(models.ChannelJobs), models.Topic(models.ChannelNodes),
	models.Topic(models.ChannelBookings), models.Topic(models.ChannelScheduler)}

// Run queues passes until ctx ends. The decisions are kickState's; Run
// only feeds it the signals, the gap timer and the stale ticker, and acts.
func (k *Kicker) Run(ctx context.Context) {
	events, cancel := k.Listener.Subscribe(kickTopics...)
	defer cancel()
	k.loop(ctx, events)
}

// loop is Run once subscribed to events.
func (k *Kicker) loop(ctx context.Context, events <-chan models.Event) {
	var st kickState
	stale := time.NewTicker(kickStale)
	defer stale.Stop()
	gap := time.NewTimer(0)
	<-gap.C
	for {
		var a kickAction
		select {
		case <-ctx.Done():
			return
		case e := <-events:
			a = st.event(e, time.Now())
		case <-gap.C:
			a = st.gapFired()
		case <-stale.C:
			a = st.staleTick(time.Now())
		}
		if a.Arm {
			gap.Reset(a.Gap)
		}
		if a.Kick != "" {
			k.kick(ctx, a.Kick)
			st.kicked(time.Now())
		}
	}
}

// kickAction is what the kicker does after one input: queue a pass now,
// arm the gap timer, or (the zero value) nothing.
type kickAction struct {
	// Kick is the reason of the pass to queue now; "" when none.
	Kick string
	// Arm says to arm the gap timer, for Gap.
	Arm bool
	// Gap is how long the gap timer waits when Arm.
	Gap time.Duration
}

// kickState is the kicker's decision logic, apart from its clocks and its
// queue so that it can be tested without either. Its zero value is a
// kicker with no pass in flight, nothing dirty and no gap armed.
type kickState struct {
	inflight time.Time // when the pass we are waiting for was queued; zero when none
	dirty    string    // the topic of the latest change no pass has seen yet; "" when none
	gapping  bool      // the gap timer is armed: a pass is due when it fires
}

// event decides on a change signal or a pass's report, received at now.
func (s *kickState) event(e models.Event, now time.Time) kickAction {
	switch {
	case e.Topic == models.Topic(models.ChannelScheduler) && e.Payload == PassDone:
		if s.inflight.IsZero() {
			return kickAction{} // another replica's pass, or one given up on
		}
		gap := min(max(stormGapFactor*now.Sub(s.inflight), stormGapMin), stormGapMax)
		s.inflight = time.Time{}
		if s.dirty != "" && !s.gapping {
			s.gapping = true
			return kickAction{Arm: true, Gap: gap}
		}
	case s.inflight.IsZero() && !s.gapping:
		return kickAction{Kick: e.Topic}
	default:
		s.dirty = e.Topic
	}
	return kickAction{}
}

// gapFired decides when the gap timer fires.
func (s *kickState) gapFired() kickAction {
	s.gapping = false
	if s.dirty != "" && s.inflight.IsZero() {
		return kickAction{Kick: s.dirty}
	}
	return kickAction{}
}

// staleTick decides on a tick of the stale ticker at now: a pass queued
// over kickStale ago that has not reported is given up on.
func (s *kickState) staleTick(now time.Time) kickAction {
	if !s.inflight.IsZero() && now.Sub(s.inflight) > kickStale {
		s.inflight = time.Time{}
		if s.dirty != "" && !s.gapping {
			return kickAction{Kick: s.dirty}
		}
	}
	return kickAction{}
}

// kicked records that the pass an action asked for was queued at now.
func (s *kickState) kicked(now time.Time) {
	s.inflight, s.dirty = now, ""
}

func (k *Kicker) kick(ctx context.Context, reason string) {
	if _, err := k.River.Insert(ctx, SchedulePassArgs{Reason: reason}, nil); err != nil && ctx.Err() == nil {
		k.Logger.Warn("could not queue a scheduling pass; the periodic pass will run", "err", err)
	}
}
