package jobs

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// kickInput is one thing the kicker's loop feeds kickState: a signal on a
// topic (done: the pass-done report), the gap timer firing, or a stale tick.
type kickInput struct {
	at    time.Duration // since the start of the case
	topic string        // a signal on this topic
	done  bool          // the scheduler channel's PassDone
	gap   bool          // the gap timer fires
	stale bool          // the stale ticker ticks
}

// TestKickState plays each case's inputs through kickState as Run does
// (an action's Kick is recorded as queued at the same instant) and
// compares the actions taken.
func TestKickState(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	none := kickAction{}
	kick := func(reason string) kickAction { return kickAction{Kick: reason} }
	arm := func(d time.Duration) kickAction { return kickAction{Arm: true, Gap: d} }
	jobs, nodes, bookings := "jobs", "nodes", "bookings"
	type step struct {
		in   kickInput
		want kickAction
	}
	for name, steps := range map[string][]step{
		"a lone change queues a pass at once": {
			{kickInput{topic: jobs}, kick(jobs)},
		},
		"changes while a pass is in flight only mark the cluster dirty": {
			{kickInput{topic: jobs}, kick(jobs)},
			{kickInput{at: 10 * ms, topic: nodes}, none},
			{kickInput{at: 20 * ms, topic: bookings}, none},
		},
		"done after a storm waits stormGapFactor times what the pass took, then queues the latest change": {
			{kickInput{topic: jobs}, kick(jobs)},
			{kickInput{at: 10 * ms, topic: jobs}, none},
			{kickInput{at: 20 * ms, topic: nodes}, none},
			{kickInput{at: 300 * ms, done: true}, arm(stormGapFactor * 300 * ms)},
			{kickInput{at: 1200 * ms, gap: true}, kick(nodes)},
		},
		"the gap is at least stormGapMin": {
			{kickInput{topic: jobs}, kick(jobs)},
			{kickInput{at: 1 * ms, topic: jobs}, none},
			{kickInput{at: 5 * ms, done: true}, arm(stormGapMin)},
		},
		"the gap is at most stormGapMax": {
			{kickInput{topic: jobs}, kick(jobs)},
			{kickInput{at: 10 * ms, topic: jobs}, none},
			{kickInput{at: 3 * time.Second, done: true}, arm(stormGapMax)},
		},
		"changes during the gap wait for it": {
			{kickInput{topic: jobs}, kick(jobs)},
			{kickInput{at: 10 * ms, topic: jobs}, none},
			{kickInput{at: 100 * ms, done: true}, arm(stormGapFactor * 100 * ms)},
			{kickInput{at: 150 * ms, topic: bookings}, none},
			{kickInput{at: 200 * ms, gap: true}, kick(bookings)},
		},
		"done with nothing dirty queues nothing, and the next change goes at once": {
			{kickInput{topic: jobs}, kick(jobs)},
			{kickInput{at: 100 * ms, done: true}, none},
			{kickInput{at: 110 * ms, topic: nodes}, kick(nodes)},
		},
		"done from a pass this kicker did not queue queues nothing": {
			{kickInput{done: true}, none},
			{kickInput{at: 10 * ms, topic: jobs}, kick(jobs)},
			{kickInput{at: 20 * ms, done: true}, none},
			{kickInput{at: 30 * ms, done: true}, none},
		},
		"another payload on the scheduler channel is a change": {
			{kickInput{topic: models.Topic(models.ChannelScheduler)}, kick("scheduler")},
		},
		"a pass silent over kickStale is given up on and the dirty change queued": {
			{kickInput{topic: jobs}, kick(jobs)},
			{kickInput{at: time.Second, topic: nodes}, none},
			{kickInput{at: kickStale, stale: true}, none},
			{kickInput{at: 2 * kickStale, stale: true}, kick(nodes)},
		},
		"a stale pass with nothing dirty is forgotten; the next change goes at once": {
			{kickInput{topic: jobs}, kick(jobs)},
			{kickInput{at: kickStale + ms, stale: true}, none},
			{kickInput{at: kickStale + 2*ms, topic: jobs}, kick(jobs)},
		},
		"a stale tick with no pass in flight does nothing": {
			{kickInput{at: kickStale, stale: true}, none},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
			var st kickState
			var got, want []kickAction
			for _, s := range steps {
				now := start.Add(s.in.at)
				var a kickAction
				switch {
				case s.in.done:
					a = st.event(models.Event{Topic: models.Topic(models.ChannelScheduler), Payload: PassDone}, now)
				case s.in.gap:
					a = st.gapFired()
				case s.in.stale:
					a = st.staleTick(now)
				default:
					a = st.event(models.Event{Topic: s.in.topic, Payload: "1"}, now)
				}
				if a.Kick != "" {
					st.kicked(now)
				}
				got, want = append(got, a), append(want, s.want)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("actions (-want +got):\n%s", d)
			}
		})
	}
}

// TestKickerQueuesPasses runs a Kicker's loop over a real Listener and an
// unstarted River client (no worker runs a pass, and no periodic pass is
// queued): the test itself plays the passes' PassDone reports.
func TestKickerQueuesPasses(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	logger := slog.New(slog.DiscardHandler)
	client, err := NewClient(&Deps{DB: db, Logger: logger, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	listener := models.NewListener(db.Pool, logger)
	go listener.Run(ctx)
	waitListening(t, db, listener)
	events, cancel := listener.Subscribe(kickTopics...) // as Run does, but before the first NOTIFY
	defer cancel()
	// The loop takes its signals from in, which has no buffer: once it
	// takes one, it has acted on every signal before it.
	in := make(chan models.Event)
	go (&Kicker{Listener: listener, River: client, Logger: logger}).loop(ctx, in)
	notify := func(channel, payload string) {
		t.Helper()
		if err := models.Signal(ctx, db.Bun, channel, payload); err != nil {
			t.Fatal(err)
		}
	}
	hand := func(e models.Event) {
		t.Helper()
		select {
		case in <- e:
		case <-time.After(10 * time.Second):
			t.Fatal("the loop took no signal within 10s")
		}
	}
	// deliver hands the loop the next n signals the listener received.
	deliver := func(n int) {
		t.Helper()
		for range n {
			select {
			case e := <-events:
				hand(e)
			case <-time.After(10 * time.Second):
				t.Fatal("no signal within 10s")
			}
		}
	}
	// settle returns once the loop has acted on every signal delivered:
	// it hands it one more change on the nodes topic, which, while a pass
	// is in flight, only marks the cluster dirty.
	settle := func() { t.Helper(); hand(models.Event{Topic: models.Topic(models.ChannelNodes), Payload: "settle"}) }
	passes := func() []string { t.Helper(); return queuedPasses(t, db) }
	awaitPasses := func(n int) time.Time {
		t.Helper()
		if !eventually(10*time.Second, func() bool { return len(passes()) >= n }) {
			t.Fatalf("passes %q after 10s, want %d", passes(), n)
		}
		return time.Now()
	}

	// A pass another replica ran reports done: nothing to queue. Then a
	// lone change queues one pass, for that change.
	notify(models.ChannelScheduler, PassDone)
	notify(models.ChannelJobs, "1")
	deliver(2)
	queued := awaitPasses(1)

	// A storm while that pass is in flight queues nothing more.
	notify(models.ChannelJobs, "2")
	notify(models.ChannelBookings, "3")
	notify(models.ChannelNodes, "4")
	deliver(3)
	settle()
	if d := cmp.Diff([]string{"jobs"}, passes()); d != "" {
		t.Fatalf("passes while one is in flight (-want +got):\n%s", d)
	}

	// It reports done after 300 ms: one more pass, for the latest change,
	// but only after a gap of stormGapFactor times what the pass took.
	time.Sleep(time.Until(queued.Add(300 * time.Millisecond))) // the pass's own run time, which the gap scales with
	done := time.Now()
	took := done.Sub(queued)
	notify(models.ChannelScheduler, PassDone)
	deliver(1)
	next := awaitPasses(2)
	if gap := next.Sub(done); gap < took/2 {
		t.Errorf("the next pass was queued %v after the last reported done, want at least half of the %v it took", gap, took)
	}

	// That pass reports done with nothing changed since, then a stray
	// report: nothing is queued. A lone change still goes at once.
	notify(models.ChannelScheduler, PassDone)
	notify(models.ChannelScheduler, PassDone)
	notify(models.ChannelJobs, "5")
	deliver(3)
	settle()
	if d := cmp.Diff([]string{"jobs", "nodes", "jobs"}, passes()); d != "" {
		t.Errorf("passes queued (-want +got):\n%s", d)
	}
}

// queuedPasses returns the reasons of the queued scheduling passes, oldest
// first.
func queuedPasses(t *testing.T, db *models.DB) []string {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(),
		`SELECT args->>'reason' FROM river_job WHERE kind = $1 ORDER BY id`, SchedulePassArgs{}.Kind())
	if err != nil {
		t.Fatal(err)
	}
	reasons, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return reasons
}
