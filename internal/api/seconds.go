package api

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Seconds is a span of time in whole seconds, between 1 second and 30 days
// (a job's estimated_duration, its stop_grace). On the wire a request may
// give a number of seconds or a string: seconds ("5400") or a Go duration
// ("90m", "2h30m"); it is sent as a number. A fraction of a second is
// dropped. The zero value means none was given.
type Seconds int64

// MaxSeconds is the longest span a Seconds holds: 30 days.
const MaxSeconds Seconds = 30 * 24 * 3600

// secondsWant says how a span may be written.
const secondsWant = `must be seconds or a duration like "90m" or "2h30m"`

// SecondsOf returns d in whole seconds.
func SecondsOf(d time.Duration) Seconds { return Seconds(d / time.Second) }

// Duration returns s as a time.Duration.
func (s Seconds) Duration() time.Duration { return time.Duration(s) * time.Second }

// Validate returns nil for a span of 1 second to 30 days, else an error
// that says so.
func (s Seconds) Validate() error {
	_, err := inRange(float64(s), strconv.FormatInt(int64(s), 10))
	return err
}

// ParseSeconds reads a span as people type it (flags, forms): seconds or a
// Go duration, 1 second to 30 days.
func ParseSeconds(text string) (Seconds, error) {
	secs, ok := secondsIn(text)
	if !ok {
		return 0, fmt.Errorf("%q is not a duration like \"90m\" or \"2h30m\"", text)
	}
	return inRange(secs, strconv.Quote(text))
}

// UnmarshalJSON reads seconds or a duration string; null leaves s as it
// is. Any other value, or one out of range, is refused with an error that
// InvalidValue explains.
func (s *Seconds) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		var text string
		if err := json.Unmarshal(b, &text); err != nil {
			return invalidValue[Seconds](secondsWant)
		}
		var ok bool
		if secs, ok = secondsIn(text); !ok {
			return invalidValue[Seconds](fmt.Sprintf("%q is not a duration like \"90m\" or \"2h30m\"", text))
		}
	}
	v, err := inRange(secs, string(b))
	if err != nil {
		return invalidValue[Seconds](err.Error())
	}
	*s = v
	return nil
}

// secondsIn reads text as seconds or a Go duration.
func secondsIn(text string) (float64, bool) {
	if n, err := strconv.ParseFloat(text, 64); err == nil {
		return n, true
	}
	if d, err := time.ParseDuration(text); err == nil {
		return d.Seconds(), true
	}
	return 0, false
}

// inRange checks secs (written as raw) against 1 s–30 days.
func inRange(secs float64, raw string) (Seconds, error) {
	if !(secs >= 1 && secs <= float64(MaxSeconds)) { // NaN too
		return 0, fmt.Errorf("must be between 1 second and 30 days, got %s", raw)
	}
	return Seconds(secs), nil
}
