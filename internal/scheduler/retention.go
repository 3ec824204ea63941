package scheduler

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// Day is 24 hours, the unit of an Age written "90d".
const Day = 24 * time.Hour

// RetentionConfig says how long the control plane keeps the rows that only
// grow: the policy's "retention" section. An age left out (zero) takes its
// default (DefaultRetention); WithDefaults fills them in.
type RetentionConfig struct {
	// IdempotencyKeys is how long the answer to a request sent with an
	// Idempotency-Key is remembered: a retry within it gets that answer.
	IdempotencyKeys Age `json:"idempotency_keys,omitzero"`
	// JobEvents is how long after a job ended its timeline (job_events)
	// is kept. The job itself is kept; a live job's timeline always is.
	JobEvents Age `json:"job_events,omitzero"`
	// NodeCommands is how long after a job ended its node commands (start,
	// stop) are kept, and with them the output of its runs.
	NodeCommands Age `json:"node_commands,omitzero"`
	// Notifications is how long a notification is kept once delivered
	// (in-app ones included) or given up on; one still being delivered
	// is kept.
	Notifications Age `json:"notifications,omitzero"`
	// AuditLog is how long audit entries are kept; it is kept longest: at
	// least as long as job events, node commands and notifications.
	AuditLog Age `json:"audit_log,omitzero"`
}

// DefaultRetention is the retention of a policy that sets none: a day of
// idempotency keys, 90 days of job timelines and node commands, 30 days of
// notifications, 400 days of audit log.
func DefaultRetention() RetentionConfig {
	return RetentionConfig{
		IdempotencyKeys: Age(Day),
		JobEvents:       Age(90 * Day),
		NodeCommands:    Age(90 * Day),
		Notifications:   Age(30 * Day),
		AuditLog:        Age(400 * Day),
	}
}

// WithDefaults returns r with each age left out set to its default.
func (r RetentionConfig) WithDefaults() RetentionConfig {
	d := DefaultRetention()
	for _, p := range []struct{ got, def *Age }{
		{&r.IdempotencyKeys, &d.IdempotencyKeys}, {&r.JobEvents, &d.JobEvents}, {&r.NodeCommands, &d.NodeCommands},
		{&r.Notifications, &d.Notifications}, {&r.AuditLog, &d.AuditLog},
	} {
		if *p.got == 0 {
			*p.got = *p.def
		}
	}
	return r
}

// Least ages: an age typed "90s" or "90m" for "90d" must not wipe history.
const (
	minIdempotencyAge = time.Hour
	minHistoryAge     = Day
)

func (r RetentionConfig) validate() []error {
	var errs []error
	full, def := r.WithDefaults(), DefaultRetention()
	for _, a := range []struct {
		key        string
		given, def Age
		least      time.Duration
	}{
		{"idempotency_keys", r.IdempotencyKeys, def.IdempotencyKeys, minIdempotencyAge},
		{"job_events", r.JobEvents, def.JobEvents, minHistoryAge},
		{"node_commands", r.NodeCommands, def.NodeCommands, minHistoryAge},
		{"notifications", r.Notifications, def.Notifications, minHistoryAge},
		{"audit_log", r.AuditLog, def.AuditLog, minHistoryAge},
	} {
		switch {
		case a.given < 0:
			errs = append(errs, keyErr("retention."+a.key, "retention.%s must not be negative", a.key))
		case a.given > 0 && time.Duration(a.given) < a.least:
			errs = append(errs, keyErr("retention."+a.key, "retention.%s is %s; it must be at least %s (leave it out for %s)",
				a.key, a.given, Age(a.least), a.def))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	longest, key := full.JobEvents, "job_events"
	if full.NodeCommands > longest {
		longest, key = full.NodeCommands, "node_commands"
	}
	if full.Notifications > longest {
		longest, key = full.Notifications, "notifications"
	}
	if full.AuditLog < longest {
		errs = append(errs, keyErr("retention.audit_log", "retention.audit_log is %s, shorter than retention.%s (%s): the audit log is kept longest",
			full.AuditLog, key, longest))
	}
	return errs
}

// Age is a length of time for retention, written in whole days ("90d") or
// as a Go duration ("36h", "90m").
type Age time.Duration

// String writes whole days as "90d", anything else as Go does ("36h0m0s").
func (a Age) String() string {
	if a > 0 && time.Duration(a)%Day == 0 {
		return strconv.FormatInt(int64(time.Duration(a)/Day), 10) + "d"
	}
	return time.Duration(a).String()
}

// MarshalText writes the age as String does.
func (a Age) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// maxDays is the longest age in days a time.Duration holds.
const maxDays = int64(1<<63-1) / int64(Day)

// UnmarshalText reads "90d", "36h", "1h30m" and the like.
func (a *Age) UnmarshalText(b []byte) error {
	s := string(b)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n < 0 || n > maxDays {
			return ageError(s)
		}
		*a = Age(time.Duration(n) * Day)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return ageError(s)
	}
	*a = Age(v)
	return nil
}

func ageError(s string) error {
	return errors.New(strconv.Quote(s) + " is not an age like 90d (days) or 36h")
}
