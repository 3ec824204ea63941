package handlers

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// Kinds of a policy form field: how its text is read and written.
const (
	keyDuration = "duration" // a Go duration: 90s, 15m, 2h
	keyAge      = "age"      // whole days (90d) or a Go duration
	keyFloat    = "float"
	keyInt      = "int"
	keyBool     = "bool"
	keySelect   = "select"
	keyFloats   = "floats"  // comma-separated numbers
	keyStrings  = "strings" // comma-separated words
	keyText     = "text"    // a word or a few, as typed
	keyRates    = "rates"   // comma-separated name = number pairs
)

// policyKey is one key of the policy as the form shows it: its JSON path
// (the form field's name), label, kind, unit and help. optional: an empty
// field leaves the key out, so its default applies.
type policyKey struct {
	key, label, kind, unit, help string
	optional                     bool
	options                      []views.Option
}

// policySection is a fieldset of the form; open sections are not folded.
type policySection struct {
	title, help string
	open        bool
	keys        []policyKey
}

var (
	durationHelp = "a duration like 90s, 15m or 2h"
	ageHelp      = "days like 90d, or a duration like 36h"
)

// orderSection are the keys a preset sets; the form uses them only when
// the preset is Custom.
var orderSection = policySection{title: "Order (used when the preset is Custom)", open: true,
	help: "A preset above sets these five keys; choose Custom to set them yourself.", keys: []policyKey{
		{key: "policy", label: "Policy", kind: keySelect, help: "how the queue is ordered", options: []views.Option{
			{Value: "las", Label: "las: least GPU time first, in levels"}, {Value: "gittins", Label: "gittins: likeliest to finish soon first, within las levels"},
			{Value: "fairshare", Label: "fairshare: least recent use first (Slurm multifactor)"}, {Value: "priority", Label: "priority: highest priority first, with aging"},
			{Value: "sjf", Label: "sjf: shortest estimate first"}, {Value: "fcfs", Label: "fcfs: arrival order"}}},
		{key: "backfill", label: "Backfill", kind: keyBool, help: "a later job may start early when it does not delay the job at the head"},
		{key: "preemption", label: "Preemption", kind: keyBool, help: "a higher-priority job may stop a preemptible lower-priority one"},
		{key: "estimates", label: "Run-time estimates", kind: keySelect, optional: true, help: "what backfill and start estimates use", options: []views.Option{
			{Value: "", Label: "user: the job's --time, else the learned median"}, {Value: "learned", Label: "learned: the learned median only"}}},
		{key: "fair_share.entitled", label: "Fair share counts only use beyond the entitled share", kind: keyBool},
	}}

// policySections are the form's fieldsets after the presets, in order.
var policySections = []policySection{orderSection,
	{title: "Waiting and estimates", open: true, keys: []policyKey{
		{key: "aging_per_hour", label: "Aging", kind: keyFloat, unit: "priority levels per hour", help: "how fast a waiting job gains priority (priority and fairshare), so none starves"},
		{key: "min_runtime", label: "Protected after start", kind: keyDuration, unit: "duration", help: "a job that started less than this ago is not preempted for priority"},
		{key: "default_duration", label: "Run time of a job without estimate", kind: keyDuration, unit: "duration", help: "assumed for backfill and start estimates"},
	}},
	{title: "Idle GPUs", open: true, help: "What happens to GPUs a running job holds but does not use.", keys: []policyKey{
		{key: "idle_action", label: "Action", kind: keySelect, optional: true, options: []views.Option{
			{Value: "", Label: "none: do nothing"}, {Value: "warn", Label: "warn: tell the owner"}, {Value: "release", Label: "release: tell the owner, then end the job after the grace"}}},
		{key: "idle_after", label: "Idle for", kind: keyDuration, unit: "duration", optional: true, help: "how long GPUs sit idle before the owner is told"},
		{key: "idle_grace", label: "Grace before release", kind: keyDuration, unit: "duration", optional: true, help: "from the warning to the release"},
		{key: "idle_utilization_pct", label: "Idle at or below", kind: keyInt, unit: "% utilization", optional: true, help: "empty: 5 %"},
		{key: "idle_exempt", label: "Never warned or released", kind: keyStrings, optional: true, help: "emails and teams, comma-separated: ana@example.com, team:vision"},
		{key: "idle_ok_allowed", label: "Jobs may opt out (idle_ok)", kind: keyBool},
		{key: "idle_in_bookings", label: "Act inside the owner's own booking too", kind: keyBool},
	}},
	{title: "Booking limits", open: true, help: "What one member may book in the calendar. Empty: the server's default from its environment. An admin's import is not held to them.", keys: []policyKey{
		{key: "booking_limits.max_gpus", label: "GPUs in one booking", kind: keyInt, unit: "GPUs", optional: true},
		{key: "booking_limits.max_length", label: "Longest booking", kind: keyDuration, unit: "duration", optional: true},
		{key: "booking_limits.max_ahead", label: "Furthest ahead a booking may start", kind: keyDuration, unit: "duration", optional: true},
		{key: "booking_limits.max_live", label: "Upcoming and active bookings per member", kind: keyInt, unit: "bookings", optional: true, help: "a series counts once"},
	}},
	{title: "Cost (accounting)", open: true, help: "What a GPU-hour costs, for the accounting page and its CSV. Scheduling does not read it. Empty: no prices.", keys: []policyKey{
		{key: "cost_rates", label: "Price per GPU-hour, by GPU model", kind: keyRates, unit: "model = price, comma-separated", optional: true,
			help: "H100 = 2.5, A100 = 1.2: a model prices every GPU whose model name contains it (the longest match wins)"},
		{key: "currency", label: "Currency", kind: keyText, optional: true, help: "EUR, USD or credits: said beside every cost"},
	}},
	{title: "Shared GPUs", open: true, help: "Jobs on a shared GPU (--gpu-share, --gpu-memory) and sessions.", keys: []policyKey{
		{key: "gpu_memory_overrun.action", label: "A share job over its GPU memory", kind: keySelect, optional: true, options: []views.Option{
			{Value: "", Label: "stop: tell the owner, then stop the job after the grace"}, {Value: "warn", Label: "warn: tell the owner only"}}},
		{key: "gpu_memory_overrun.grace", label: "Grace before the stop", kind: keyDuration, unit: "duration", optional: true, help: "empty: 60s"},
		{key: "session_gpu_share", label: "Sessions take", kind: keyFloat, unit: "of a shared GPU, 0 to 1", optional: true, help: "empty or 0: whole GPUs"},
	}},
	{title: "Attained service (las, gittins)", keys: []policyKey{
		{key: "las.thresholds_gpu_hours", label: "Level boundaries", kind: keyFloats, unit: "GPU-hours, ascending", help: "n boundaries make n+1 levels; \"GPU-time level 1 of 4\" is the first and goes first"},
		{key: "las.starvation_limit", label: "Promote after waiting", kind: keyDuration, unit: "duration", help: "0: never promote"},
		{key: "las.fresh_per_promoted", label: "Jobs in level order per promoted job", kind: keyInt, unit: "jobs"},
		{key: "las.checkpoint_preemption", label: "Stop checkpointing jobs demoted behind the head", kind: keyBool},
		{key: "las.preempt_cooldown", label: "Run at least this long before a demotion stop", kind: keyDuration, unit: "duration"},
		{key: "las.max_lost_share", label: "Most GPU time lost to preemption", kind: keyFloat, unit: "share of GPU time, 0 to 1", help: "over 7 days; 0: no cap"},
		{key: "las.learned_overrun", label: "A job past its estimate runs on for its learned median", kind: keyBool},
		{key: "las.demote_slowdown_limit", label: "Protect jobs slowed down more than", kind: keyFloat, unit: "× (wait and run over run)", help: "0: no limit"},
	}},
	{title: "Fair share (fairshare presets)", keys: []policyKey{
		{key: "fair_share.half_life", label: "Usage half-life", kind: keyDuration, unit: "duration"},
		{key: "fair_share.max_age", label: "Wait at which the age factor is full", kind: keyDuration, unit: "duration"},
		{key: "fair_share.weight_fairshare", label: "Weight of fair share", kind: keyFloat, unit: "weight"},
		{key: "fair_share.weight_age", label: "Weight of waiting time", kind: keyFloat, unit: "weight"},
		{key: "fair_share.weight_priority", label: "Weight of priority", kind: keyFloat, unit: "weight"},
		{key: "fair_share.weight_size", label: "Weight of small size", kind: keyFloat, unit: "weight"},
	}},
	{title: "Leases", help: "Every lease (gpu-allocate, gpusched run) has a time to live. Empty: the default.", keys: []policyKey{
		{key: "leases.default_ttl", label: "TTL when the client asks for none", kind: keyDuration, unit: "duration", optional: true},
		{key: "leases.max_ttl", label: "Longest TTL a client may ask for", kind: keyDuration, unit: "duration", optional: true},
		{key: "leases.confirm_within", label: "Release a grant not learned of within", kind: keyDuration, unit: "duration", optional: true},
		{key: "leases.node_ttl", label: "TTL of a node agent's local lease", kind: keyDuration, unit: "duration", optional: true},
	}},
	{title: "Retention", help: "How long history is kept. Empty: the default.", keys: []policyKey{
		{key: "retention.idempotency_keys", label: "Answers to Idempotency-Key retries", kind: keyAge, unit: "age", optional: true},
		{key: "retention.job_events", label: "Timelines of ended jobs", kind: keyAge, unit: "age", optional: true},
		{key: "retention.node_commands", label: "Node commands and output of ended jobs", kind: keyAge, unit: "age", optional: true},
		{key: "retention.notifications", label: "Delivered notifications", kind: keyAge, unit: "age", optional: true},
		{key: "retention.audit_log", label: "Audit log", kind: keyAge, unit: "age", optional: true, help: "at least as long as the others"},
	}},
}

// bookingDefaults says, per booking limit, the server's default and the
// variable that sets it.
func (h *Handlers) bookingDefaults() map[string]string {
	l := h.Config.Bookings.WithDefaults()
	return map[string]string{
		"booking_limits.max_gpus":   fmt.Sprintf("%d (GPUSCHED_BOOKING_MAX_GPUS)", l.MaxGPUs),
		"booking_limits.max_length": withDays(l.MaxLength) + " (GPUSCHED_BOOKING_MAX_LENGTH)",
		"booking_limits.max_ahead":  withDays(l.MaxAhead) + " (GPUSCHED_BOOKING_MAX_AHEAD)",
		"booking_limits.max_live":   strconv.Itoa(l.MaxLive) + " (GPUSCHED_BOOKING_MAX_LIVE)",
	}
}

// shortDuration writes d as Go does without its zero tails: 4h, 1h30m, 90s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// withDays writes d as shortDuration does, with whole days said too:
// "720h, 30 days".
func withDays(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= 2*day && d%day == 0 {
		return fmt.Sprintf("%s, %s", shortDuration(d), words.Count(int(d/day), "day"))
	}
	return shortDuration(d)
}
