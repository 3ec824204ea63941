package scheduler

import (
	"time"
)

// LeasePolicy bounds how long a lease holds GPUs (a lease: the client runs
// its own process on GPUs it was granted, through gpu-allocate or a node
// agent's /acquire). Every lease has a TTL; a zero field means its default.
type LeasePolicy struct {
	// DefaultTTL is a lease's TTL when its client asks for none.
	DefaultTTL Duration `json:"default_ttl"`
	// MaxTTL caps what a client may ask for, at creation and on renewal.
	MaxTTL Duration `json:"max_ttl"`
	// ConfirmWithin is how long a granted lease waits for its client to
	// learn of the grant; one never confirmed is released after it.
	ConfirmWithin Duration `json:"confirm_within"`
	// NodeTTL is the TTL of a lease a node agent watches for a local
	// process: the agent renews it while the process lives, so it runs out
	// this long after the process, or the agent, is gone.
	NodeTTL Duration `json:"node_ttl"`
}

// Lease defaults and the bounds of the policy's values.
const (
	DefaultLeaseTTL      = 8 * time.Hour
	DefaultLeaseMaxTTL   = 7 * 24 * time.Hour
	DefaultConfirmWithin = 2 * time.Minute
	DefaultNodeLeaseTTL  = time.Minute
	// MinNodeLeaseTTL leaves a node agent, which renews with each heartbeat
	// (every few seconds), a few tries before its leases run out.
	MinNodeLeaseTTL = 10 * time.Second
)

// DefaultLeases is the lease policy of DefaultConfig.
func DefaultLeases() LeasePolicy {
	return LeasePolicy{DefaultTTL: Duration(DefaultLeaseTTL), MaxTTL: Duration(DefaultLeaseMaxTTL),
		ConfirmWithin: Duration(DefaultConfirmWithin), NodeTTL: Duration(DefaultNodeLeaseTTL)}
}

// Resolved returns p with every zero field at its default.
func (p LeasePolicy) Resolved() LeasePolicy {
	d := DefaultLeases()
	if p.DefaultTTL == 0 {
		p.DefaultTTL = d.DefaultTTL
	}
	if p.MaxTTL == 0 {
		p.MaxTTL = d.MaxTTL
	}
	if p.ConfirmWithin == 0 {
		p.ConfirmWithin = d.ConfirmWithin
	}
	if p.NodeTTL == 0 {
		p.NodeTTL = d.NodeTTL
	}
	return p
}

// GrantedUntil is when a lease with TTL ttl granted at now runs out unless
// its client confirms the grant: after ConfirmWithin, or its TTL when that
// is shorter.
func (p LeasePolicy) GrantedUntil(ttl time.Duration, now time.Time) time.Time {
	return now.Add(min(ttl, time.Duration(p.Resolved().ConfirmWithin)))
}

// validate lists what is wrong with p.
func (p LeasePolicy) validate() []error {
	var errs []error
	for _, f := range []struct {
		name string
		v    Duration
	}{{"default_ttl", p.DefaultTTL}, {"max_ttl", p.MaxTTL}, {"confirm_within", p.ConfirmWithin}, {"node_ttl", p.NodeTTL}} {
		if f.v < 0 {
			errs = append(errs, keyErr("leases."+f.name, "leases.%s must not be negative (0 means its default)", f.name))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	r := p.Resolved()
	if r.DefaultTTL > r.MaxTTL {
		errs = append(errs, keyErr("leases.default_ttl", "leases.default_ttl (%s) must not exceed leases.max_ttl (%s)",
			time.Duration(r.DefaultTTL), time.Duration(r.MaxTTL)))
	}
	if r.ConfirmWithin < Duration(time.Second) {
		errs = append(errs, keyErr("leases.confirm_within", "leases.confirm_within must be at least 1s: a client needs time to learn of its grant"))
	}
	if r.NodeTTL < Duration(MinNodeLeaseTTL) {
		errs = append(errs, keyErr("leases.node_ttl", "leases.node_ttl must be at least %s: node agents renew their leases with each heartbeat, every few seconds", MinNodeLeaseTTL))
	}
	return errs
}
