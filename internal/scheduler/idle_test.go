package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDecideIdle walks one allocation through the policy: warned after
// idle_after, released after idle_grace more, reset by activity, and spared
// while busy, without telemetry, exempt, opted out or in its owner's booking.
func TestDecideIdle(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	at := func(d time.Duration) *time.Time { t := ago(d); return &t }
	release := IdlePolicy{IdleAction: IdleRelease, IdleAfter: Duration(2 * time.Hour), IdleGrace: Duration(30 * time.Minute)}
	base := IdleAllocation{JobID: 1, Owner: "ana@example.com", Team: "vision", Since: ago(3 * time.Hour), LastSample: ago(5 * time.Second)}
	with := func(f func(*IdleAllocation)) IdleAllocation { a := base; f(&a); return a }
	cases := map[string]struct {
		p    IdlePolicy
		a    IdleAllocation
		want []IdleDecision
	}{
		"idle past idle_after: warn with the reclaim time": {release, base,
			[]IdleDecision{{JobID: 1, Action: IdleWarn, IdleSince: ago(3 * time.Hour), ReclaimAt: now.Add(30 * time.Minute)}}},
		"warned, grace over: release": {release, with(func(a *IdleAllocation) { a.WarnedAt = at(31 * time.Minute) }),
			[]IdleDecision{{JobID: 1, Action: IdleRelease, IdleSince: ago(3 * time.Hour), Reason: "reclaimed: idle for 3h"}}},
		"warned, grace not over: nothing": {release, with(func(a *IdleAllocation) { a.WarnedAt = at(10 * time.Minute) }), nil},
		"activity in the grace period: reset": {release, with(func(a *IdleAllocation) {
			a.WarnedAt, a.LastActive = at(10*time.Minute), ago(5*time.Second)
		}), []IdleDecision{{JobID: 1, Action: "reset", IdleSince: ago(5 * time.Second)}}},
		"busy recently: nothing":       {release, with(func(a *IdleAllocation) { a.LastActive = ago(time.Hour) }), nil},
		"no recent telemetry: nothing": {release, with(func(a *IdleAllocation) { a.LastSample = ago(10 * time.Minute) }), nil},
		"warn only: warned once, never released": {IdlePolicy{IdleAction: IdleWarn, IdleAfter: Duration(time.Hour)},
			with(func(a *IdleAllocation) { a.WarnedAt = at(5 * time.Hour) }), nil},
		"exempt owner": {func() IdlePolicy { p := release; p.IdleExempt = []string{"ana@example.com"}; return p }(), base, nil},
		"exempt team":  {func() IdlePolicy { p := release; p.IdleExempt = []string{"team:vision"}; return p }(), base, nil},
		"idle_ok honoured when allowed": {func() IdlePolicy { p := release; p.IdleOKAllowed = true; return p }(),
			with(func(a *IdleAllocation) { a.IdleOK = true }), nil},
		"idle_ok ignored when forbidden": {release, with(func(a *IdleAllocation) { a.IdleOK = true }),
			[]IdleDecision{{JobID: 1, Action: IdleWarn, IdleSince: ago(3 * time.Hour), ReclaimAt: now.Add(30 * time.Minute)}}},
		"inside the owner's booking": {release, with(func(a *IdleAllocation) { a.InBooking = true }), nil},
		"policy off after a warning: reset": {IdlePolicy{IdleAction: IdleNone}, with(func(a *IdleAllocation) { a.WarnedAt = at(time.Minute) }),
			[]IdleDecision{{JobID: 1, Action: "reset", IdleSince: ago(3 * time.Hour)}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DecideIdle(tc.p, []IdleAllocation{tc.a}, now)); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIdlePolicyValidate(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	c.IdlePolicy = IdlePolicy{IdleAction: "shout"}
	if c.Validate() == nil {
		t.Fatal("an unknown idle_action passed")
	}
	c.IdlePolicy = IdlePolicy{IdleAction: IdleRelease}
	if c.Validate() == nil {
		t.Fatal("release without idle_after passed")
	}
	c.IdlePolicy = IdlePolicy{IdleAction: IdleRelease, IdleAfter: Duration(time.Minute), IdleGrace: Duration(time.Minute)}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}
