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
// Under a storm of changes the next pass waits after the last one as long
// as that one took (queued to done, at most a second), so passes take at
// most half a core while scripts submit in bulk (a pass over 10,000 pending
// jobs takes tens of milliseconds) and the submissions keep the rest.
type Kicker struct {
	Listener *models.Listener
	River    *river.Client[pgx.Tx]
	Logger   *slog.Logger
}

// stormGapMax bounds the wait between two passes of a storm.
const stormGapMax = time.Second

// kickTopics are the change signals that can let a job start.
var kickTopics = []string{models.Topic(models.ChannelJobs), models.Topic(models.ChannelNodes),
	models.Topic(models.ChannelBookings), models.Topic(models.ChannelScheduler)}

// Run queues passes until ctx ends.
func (k *Kicker) Run(ctx context.Context) {
	events, cancel := k.Listener.Subscribe(kickTopics...)
	defer cancel()
	var inflight time.Time // when the pass we are waiting for was queued; zero when none
	dirty := ""
	stale := time.NewTicker(kickStale)
	defer stale.Stop()
	gap := time.NewTimer(0)
	<-gap.C
	gapping := false // a pass is due when gap fires
	kick := func(reason string) {
		k.kick(ctx, reason)
		inflight, dirty = time.Now(), ""
	}
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-events:
			switch {
			case e.Topic == models.Topic(models.ChannelScheduler) && e.Payload == PassDone:
				if inflight.IsZero() {
					continue // another replica's pass, or one given up on
				}
				took := min(time.Since(inflight), stormGapMax)
				inflight = time.Time{}
				if dirty != "" && !gapping {
					gap.Reset(took)
					gapping = true
				}
			case inflight.IsZero() && !gapping:
				kick(e.Topic)
			default:
				dirty = e.Topic
			}
		case <-gap.C:
			gapping = false
			if dirty != "" && inflight.IsZero() {
				kick(dirty)
			}
		case <-stale.C:
			if !inflight.IsZero() && time.Since(inflight) > kickStale {
				inflight = time.Time{}
				if dirty != "" && !gapping {
					kick(dirty)
				}
			}
		}
	}
}

func (k *Kicker) kick(ctx context.Context, reason string) {
	if _, err := k.River.Insert(ctx, SchedulePassArgs{Reason: reason}, nil); err != nil && ctx.Err() == nil {
		k.Logger.Warn("could not queue a scheduling pass; the periodic pass will run", "err", err)
	}
}
