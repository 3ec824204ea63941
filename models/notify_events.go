package models

import "slices"

// The catalogue of notification events. Names are stable: receivers match on
// them (X-GPUSched-Event) and users choose them in their preferences. Each
// event's payload is an EventPayload; which of its parts are set is listed
// beside the name (README "Notifications" holds the same table).
//
// A notification's way: a state change calls an emitter (notify_emitters.go,
// notify_jobs.go; the lifecycle, idle reclaim and the timers call them) in
// its own transaction; Emit (notify_emit.go) writes a row per recipient and
// channel the preferences choose (notify_prefs.go, notify_channels.go) and a
// River delivery job per row, in that same transaction; after the commit
// jobs.NotifyDeliverWorker claims the delivery (notify_delivery.go), sends
// it over its channel with no transaction open (jobs/notify_webhook.go,
// notify_slack.go, notify_email.go) and records the outcome. In-app rows
// are delivered as written; the bell and the list read them
// (notify_rows.go). The page a notification leads to is derived where it is
// sent or shown (internal/pages), not recorded here.
const (
	EventJobStarted     = "job.started"      // job: the owner's job got its GPUs and runs
	EventJobFinished    = "job.finished"     // job: ended with success (exit 0 or released)
	EventJobFailed      = "job.failed"       // job, reason: ended with an error
	EventJobCanceled    = "job.canceled"     // job, reason: canceled by a person or reclaimed
	EventJobPreempted   = "job.preempted"    // job, reason: stopped for a higher-priority job
	EventJobTimeout     = "job.timeout"      // job, reason: stopped at its time limit
	EventJobWaitingLong = "job.waiting_long" // job, reason: still queued after the threshold (reason, ETA)
	EventBookingStart   = "booking.starting" // booking: begins in a few minutes
	EventBookingEnded   = "booking.ended"    // booking: its window closed
	EventBookingClashed = "booking.clashed"  // booking, reason: an admin edit moved it
	EventHoldExpired    = "hold.expired"     // booking (the hold): its TTL passed unused
	EventGPUIdle        = "gpu.idle"         // job, idle: the allocation sat idle for the policy's time
	EventGPUReclaimed   = "gpu.reclaimed"    // job, idle: the idle allocation was given back
	EventJobMemoryOver  = "job.memory_over"  // job, reason: on a shared GPU, it uses more memory than its share
	EventNodeDown       = "node.down"        // node: a node stopped heartbeating (admins)
	EventNodeUp         = "node.up"          // node: a node came back (admins)
	// Interactive sessions (interactive_sessions.go): job, path (the link).
	EventSessionReady   = "session.ready"   // job, path: the session's server answers; the link opens it
	EventSessionIdle    = "session.idle"    // job, idle, path: the session sat idle; it stops after the grace
	EventSessionStopped = "session.stopped" // job, reason, text: it ended without its owner asking (idle, time limit, an admin, preempted, node lost, server failed); where its files stay

	// EventInvariantRepaired: reason: the invariant sweep found a GPU held
	// by a job that does not run (or the like) and repaired it (admins).
	EventInvariantRepaired = "invariant.repaired"
)

// Events lists the catalogue in the order pages show it.
var Events = []string{
	EventJobStarted, EventJobFinished, EventJobFailed, EventJobCanceled, EventJobTimeout, EventJobPreempted,
	EventJobWaitingLong, EventBookingStart, EventBookingEnded, EventBookingClashed, EventHoldExpired,
	EventGPUIdle, EventGPUReclaimed, EventJobMemoryOver, EventNodeDown, EventNodeUp, EventInvariantRepaired,
	EventSessionReady, EventSessionIdle, EventSessionStopped,
}

// AdminEvents go to administrators rather than to an owner.
var AdminEvents = []string{EventNodeDown, EventNodeUp, EventInvariantRepaired}

// TeamEvents also go to team channels (channels without an owner, such as
// the server-wide Slack channel).
var TeamEvents = []string{EventJobFailed, EventJobTimeout, EventGPUReclaimed, EventNodeDown, EventNodeUp}

// Channel kinds a notification travels by.
const (
	KindInApp   = "in_app"
	KindWebhook = "webhook"
	KindSlack   = "slack"
	KindEmail   = "email"
)

// ChannelKinds lists every kind, in-app first.
var ChannelKinds = []string{KindInApp, KindWebhook, KindSlack, KindEmail}

// DefaultPreferences are the kinds each event goes by when a user has not
// chosen: the events people ask for (their own job ended, failed or was
// preempted, a booking starting, their GPUs idle or reclaimed) everywhere;
// the rest in the app only.
func DefaultPreferences() map[string][]string {
	all := []string{KindInApp, KindWebhook, KindSlack, KindEmail}
	out := map[string][]string{}
	for _, e := range Events {
		out[e] = []string{KindInApp}
	}
	// A start is frequent and expected: nowhere unless asked for.
	out[EventJobStarted] = []string{}
	for _, e := range []string{EventJobFinished, EventJobFailed, EventJobTimeout, EventJobPreempted, EventBookingStart,
		EventBookingClashed, EventGPUIdle, EventGPUReclaimed, EventJobMemoryOver, EventNodeDown, EventInvariantRepaired,
		EventSessionReady, EventSessionIdle, EventSessionStopped} {
		out[e] = slices.Clone(all)
	}
	return out
}

// IsEvent reports whether name is in the catalogue.
func IsEvent(name string) bool { return slices.Contains(Events, name) }
