package scheduler

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Ages read whole days and Go durations, write days back as days, and
// refuse anything else with a sentence that shows the forms.
func TestAgeText(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in   string
		want Age
		out  string // written back; "" if in is refused
	}{
		"days":                                 {"90d", Age(90 * Day), "90d"},
		"a Go duration in hours":               {"36h", Age(36 * time.Hour), "36h0m0s"},
		"hours that make days":                 {"48h", Age(2 * Day), "2d"},
		"a compound Go duration":               {"1h30m", Age(90 * time.Minute), "1h30m0s"},
		"zero days":                            {"0d", 0, "0s"},
		"a fraction of days":                   {"1.5d", 0, ""},
		"days with a sign":                     {"-3d", 0, ""},
		"no number":                            {"d", 0, ""},
		"an unknown unit":                      {"90x", 0, ""},
		"more days than a time.Duration holds": {"200000d", 0, ""},
		"words":                                {"three months", 0, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var a Age
			err := a.UnmarshalText([]byte(tc.in))
			if tc.out == "" {
				if err == nil || !strings.Contains(err.Error(), "is not an age like 90d (days) or 36h") {
					t.Fatalf("%q read as %v, err %v; want refused", tc.in, time.Duration(a), err)
				}
				return
			}
			if err != nil || a != tc.want {
				t.Fatalf("%q read as %v, %v; want %v", tc.in, time.Duration(a), err, time.Duration(tc.want))
			}
			if got, _ := a.MarshalText(); string(got) != tc.out {
				t.Errorf("%v written as %q, want %q", time.Duration(a), got, tc.out)
			}
		})
	}
}

// The retention section of a stored policy reads back as written, an age
// left out takes its default, and the defaults are in DefaultConfig.
func TestRetentionJSON(t *testing.T) {
	t.Parallel()
	var c Config
	if err := json.Unmarshal([]byte(`{"retention": {"job_events": "30d", "audit_log": "8760h"}}`), &c); err != nil {
		t.Fatal(err)
	}
	want := DefaultRetention()
	want.JobEvents, want.AuditLog = Age(30*Day), Age(365*Day)
	if d := cmp.Diff(want, c.Retention.WithDefaults()); d != "" {
		t.Errorf("retention with defaults (-want +got):\n%s", d)
	}
	b, err := json.Marshal(DefaultConfig().Retention)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"idempotency_keys":"1d","job_events":"90d","node_commands":"90d","notifications":"30d","audit_log":"400d"}` {
		t.Errorf("default retention written as %s", got)
	}
	if err := json.Unmarshal([]byte(`{"retention": {"job_events": "90 days"}}`), &c); err == nil ||
		!strings.Contains(err.Error(), `"90 days" is not an age`) {
		t.Errorf("an age in words: %v", err)
	}
}

// Validate refuses negative ages, ages so short they would wipe history by
// a typo, and an audit log kept less long than anything else.
func TestRetentionValidate(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		r    RetentionConfig
		want string // "" valid, else a part of the error
	}{
		"all left out: the defaults": {RetentionConfig{}, ""},
		"the defaults":               {DefaultRetention(), ""},
		"short but sane": {RetentionConfig{IdempotencyKeys: Age(time.Hour), JobEvents: Age(Day), NodeCommands: Age(Day),
			Notifications: Age(Day), AuditLog: Age(Day)}, ""},
		"negative":                    {RetentionConfig{Notifications: Age(-Day)}, "retention.notifications must not be negative"},
		"90s typed for 90d":           {RetentionConfig{JobEvents: Age(90 * time.Second)}, "retention.job_events is 1m30s; it must be at least 1d (leave it out for 90d)"},
		"idempotency under an hour":   {RetentionConfig{IdempotencyKeys: Age(time.Minute)}, "retention.idempotency_keys is 1m0s; it must be at least 1h0m0s"},
		"audit shorter than events":   {RetentionConfig{AuditLog: Age(60 * Day)}, "retention.audit_log is 60d, shorter than retention.job_events (90d)"},
		"audit shorter than messages": {RetentionConfig{AuditLog: Age(100 * Day), Notifications: Age(200 * Day)}, "shorter than retention.notifications (200d)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := DefaultConfig()
			c.Retention = tc.r
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
