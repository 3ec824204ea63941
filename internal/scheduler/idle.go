package scheduler

import (
	"fmt"
	"slices"
	"time"
)

// Idle actions: what the idle policy does with an allocation whose GPUs sat
// idle for IdleAfter.
const (
	IdleNone    = "none"    // nothing
	IdleWarn    = "warn"    // tell the owner (gpu.idle)
	IdleRelease = "release" // tell the owner, then after IdleGrace end the job as a cancel does
)

// IdlePolicy gives idle GPUs back. It is part of Config (its keys sit at
// the policy's top level: idle_action, idle_after, …).
type IdlePolicy struct {
	IdleAction string   `json:"idle_action,omitempty"`
	IdleAfter  Duration `json:"idle_after,omitempty"`
	IdleGrace  Duration `json:"idle_grace,omitempty"`
	// IdleUtilizationPct: a GPU at or below it counts as idle (0: 5).
	IdleUtilizationPct int `json:"idle_utilization_pct,omitempty"`
	// IdleExempt are owners ("ana@example.com") and teams ("team:vision")
	// whose allocations are never warned or reclaimed.
	IdleExempt []string `json:"idle_exempt,omitempty"`
	// IdleOKAllowed honours a job's own idle_ok opt-out.
	IdleOKAllowed bool `json:"idle_ok_allowed,omitempty"`
	// IdleInBookings lets the policy act on a booking owner's job inside
	// their booking (by default it never does).
	IdleInBookings bool `json:"idle_in_bookings,omitempty"`
}

// Threshold is the utilization at or below which a GPU is idle.
func (p IdlePolicy) Threshold() int {
	if p.IdleUtilizationPct <= 0 {
		return 5
	}
	return p.IdleUtilizationPct
}

// Active reports whether the policy does anything.
func (p IdlePolicy) Active() bool { return p.IdleAction == IdleWarn || p.IdleAction == IdleRelease }

func (p IdlePolicy) validate() []error {
	var errs []error
	switch p.IdleAction {
	case "", IdleNone, IdleWarn, IdleRelease:
	default:
		errs = append(errs, keyErr("idle_action", "idle_action %q is not one of none, warn, release", p.IdleAction))
	}
	if p.Active() && p.IdleAfter <= 0 {
		errs = append(errs, keyErr("idle_after", "idle_after must be positive when idle_action is warn or release"))
	}
	if p.IdleAction == IdleRelease && p.IdleGrace < 0 {
		errs = append(errs, keyErr("idle_grace", "idle_grace must not be negative"))
	}
	if p.IdleUtilizationPct < 0 || p.IdleUtilizationPct > 100 {
		errs = append(errs, keyErr("idle_utilization_pct", "idle_utilization_pct must be between 0 and 100"))
	}
	return errs
}

// IdleAllocation is one running job's GPUs as the idle policy sees them.
type IdleAllocation struct {
	JobID int64
	Owner string // email
	Team  string // team name, "" for none
	// Since is when the job got its GPUs.
	Since time.Time
	// LastActive is the latest sample in which any of its GPUs was above
	// the threshold (zero: none since Since).
	LastActive time.Time
	// LastSample is the latest telemetry sample of its GPUs (zero: none).
	LastSample time.Time
	IdleOK     bool // the job opted out
	InBooking  bool // the owner's booking is in force now
	// WarnedAt is when gpu.idle was sent for the present idle stretch.
	WarnedAt *time.Time
}

// IdleDecision is what to do with one allocation now.
type IdleDecision struct {
	JobID int64
	// Action is "warn" (send gpu.idle), "release" (reclaim), or "reset"
	// (activity came back or the policy stopped applying: forget the warning).
	Action    string
	IdleSince time.Time
	// ReclaimAt is when release will happen (warn under a release policy).
	ReclaimAt time.Time
	// Reason is the job event's reason of a release: "reclaimed: idle for 2h".
	Reason string
}

// staleAfter: telemetry older than this says nothing of now, and nothing is
// decided on it.
const staleAfter = 2 * time.Minute

// DecideIdle applies p to allocations at now. It never acts on GPUs whose
// telemetry shows utilization since the idle stretch began, on GPUs with no
// recent telemetry, on exempt owners or teams, on jobs that opted out (when
// allowed), or on a booking owner's job inside their booking (unless
// allowed). Activity during the grace period resets the warning.
func DecideIdle(p IdlePolicy, allocs []IdleAllocation, now time.Time) []IdleDecision {
	var out []IdleDecision
	for _, a := range allocs {
		idleSince := a.Since
		if a.LastActive.After(idleSince) {
			idleSince = a.LastActive
		}
		applies := p.Active() && !slices.Contains(p.IdleExempt, a.Owner) &&
			(a.Team == "" || !slices.Contains(p.IdleExempt, "team:"+a.Team)) &&
			!(a.IdleOK && p.IdleOKAllowed) && !(a.InBooking && !p.IdleInBookings)
		fresh := !a.LastSample.IsZero() && now.Sub(a.LastSample) <= staleAfter && !a.LastSample.Before(idleSince)
		idle := fresh && now.Sub(idleSince) >= time.Duration(p.IdleAfter)
		switch {
		case a.WarnedAt != nil && (!applies || (fresh && a.LastActive.After(*a.WarnedAt)) || (fresh && !idle)):
			out = append(out, IdleDecision{JobID: a.JobID, Action: "reset", IdleSince: idleSince})
		case !applies || !idle:
		case a.WarnedAt == nil:
			d := IdleDecision{JobID: a.JobID, Action: IdleWarn, IdleSince: idleSince}
			if p.IdleAction == IdleRelease {
				d.ReclaimAt = now.Add(time.Duration(p.IdleGrace))
			}
			out = append(out, d)
		case p.IdleAction == IdleRelease && !now.Before(a.WarnedAt.Add(time.Duration(p.IdleGrace))):
			out = append(out, IdleDecision{JobID: a.JobID, Action: IdleRelease, IdleSince: idleSince,
				Reason: "reclaimed: idle for " + roundIdle(now.Sub(idleSince))})
		}
	}
	return out
}

// roundIdle writes an idle time as people say it: "2h", "45m", "30s".
func roundIdle(d time.Duration) string {
	switch {
	case d >= time.Hour:
		d = d.Round(time.Minute)
		if d%time.Hour == 0 {
			return fmt.Sprintf("%dh", d/time.Hour)
		}
		return fmt.Sprintf("%dh%dm", d/time.Hour, (d%time.Hour)/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm", d.Round(time.Minute)/time.Minute)
	}
	return fmt.Sprintf("%ds", d.Round(time.Second)/time.Second)
}
