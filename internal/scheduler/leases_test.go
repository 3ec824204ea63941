package scheduler

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLeasePolicyValidate(t *testing.T) {
	t.Parallel()
	h := func(d time.Duration) Duration { return Duration(d) }
	tests := map[string]struct {
		p    LeasePolicy
		want string // a part of the error; "" for none
	}{
		"default":                   {p: DefaultLeases()},
		"zero: every default":       {p: LeasePolicy{}},
		"negative ttl":              {p: LeasePolicy{DefaultTTL: h(-time.Hour)}, want: "leases.default_ttl must not be negative"},
		"negative node ttl":         {p: LeasePolicy{NodeTTL: h(-time.Second)}, want: "leases.node_ttl must not be negative"},
		"default over the cap":      {p: LeasePolicy{DefaultTTL: h(48 * time.Hour), MaxTTL: h(24 * time.Hour)}, want: "leases.default_ttl (48h0m0s) must not exceed leases.max_ttl (24h0m0s)"},
		"default over default cap":  {p: LeasePolicy{DefaultTTL: h(10 * 24 * time.Hour)}, want: "must not exceed leases.max_ttl (168h0m0s)"},
		"cap below default default": {p: LeasePolicy{MaxTTL: h(time.Hour)}, want: "leases.default_ttl (8h0m0s) must not exceed"},
		"confirm too short":         {p: LeasePolicy{ConfirmWithin: h(time.Millisecond)}, want: "leases.confirm_within must be at least 1s"},
		"node ttl too short":        {p: LeasePolicy{NodeTTL: h(2 * time.Second)}, want: "leases.node_ttl must be at least 10s"},
		"short and valid":           {p: LeasePolicy{DefaultTTL: h(time.Minute), MaxTTL: h(time.Hour), ConfirmWithin: h(time.Second), NodeTTL: h(10 * time.Second)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := DefaultConfig()
			c.Leases = tc.p
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// A stored policy from before the lease section, or a PUT without it, gets
// the default lease policy.
func TestLeasePolicyDefaults(t *testing.T) {
	t.Parallel()
	var c Config
	if err := json.Unmarshal([]byte(`{"policy": "fcfs", "default_duration": "1h", "fair_share": {"half_life": "1h", "max_age": "1h"}}`), &c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(DefaultLeases(), c.Leases.Resolved()); d != "" {
		t.Fatalf("resolved (-want +got):\n%s", d)
	}
	b, _ := json.Marshal(DefaultConfig().Leases)
	if got := string(b); got != `{"default_ttl":"8h0m0s","max_ttl":"168h0m0s","confirm_within":"2m0s","node_ttl":"1m0s"}` {
		t.Fatalf("JSON %s", got)
	}
}

// A grant runs out after confirm_within, or the lease's TTL when shorter.
func TestLeaseGrantedUntil(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	p := DefaultLeases()
	if got := p.GrantedUntil(8*time.Hour, now); !got.Equal(now.Add(2 * time.Minute)) {
		t.Fatalf("8h lease: until %v, want 2m after the grant", got)
	}
	if got := p.GrantedUntil(30*time.Second, now); !got.Equal(now.Add(30 * time.Second)) {
		t.Fatalf("30s lease: until %v, want its TTL", got)
	}
	if got := (LeasePolicy{}).GrantedUntil(time.Hour, now); !got.Equal(now.Add(DefaultConfirmWithin)) {
		t.Fatalf("zero policy: until %v, want the default confirm window", got)
	}
}
