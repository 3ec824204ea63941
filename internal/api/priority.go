package api

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Priority is a job's priority, 1 (low) to 4 (critical; admins only). On
// the wire a request may give its number or its name ("low", "normal",
// "high", "critical", any case); it is sent as its number. The zero value
// means none was given (the server's default is normal).
type Priority int

// The priorities.
const (
	PriorityLow      Priority = 1
	PriorityNormal   Priority = 2
	PriorityHigh     Priority = 3
	PriorityCritical Priority = 4
)

var priorityNames = [...]string{PriorityLow: "low", PriorityNormal: "normal", PriorityHigh: "high", PriorityCritical: "critical"}

// priorityWant says what a priority may be.
const priorityWant = "must be 1–4 or low, normal, high, critical"

// Valid reports whether p is one of the four priorities.
func (p Priority) Valid() bool { return p >= PriorityLow && p <= PriorityCritical }

// Validate returns nil for one of the four priorities, else an error that
// says what a priority must be.
func (p Priority) Validate() error {
	if p.Valid() {
		return nil
	}
	return fmt.Errorf("%s, got %d", priorityWant, int(p))
}

// String returns p's name ("high"), or its number when it has none.
func (p Priority) String() string {
	if p.Valid() {
		return priorityNames[p]
	}
	return fmt.Sprint(int(p))
}

// ParsePriority reads a priority's name (any case) or number, as people
// type it (flags, forms).
func ParsePriority(s string) (Priority, error) {
	s = strings.TrimSpace(s)
	for p, name := range priorityNames {
		if name != "" && strings.EqualFold(name, s) {
			return Priority(p), nil
		}
	}
	if n, err := strconv.Atoi(s); err == nil && Priority(n).Valid() {
		return Priority(n), nil
	}
	return 0, fmt.Errorf("%s, got %q", priorityWant, s)
}

// UnmarshalJSON reads 1–4 or a name; null leaves p as it is. Any other
// value is refused with an error that InvalidValue explains.
func (p *Priority) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err == nil {
		if !Priority(n).Valid() {
			return invalidValue[Priority](fmt.Sprintf("%s, got %s", priorityWant, b))
		}
		*p = Priority(n)
		return nil
	}
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return invalidValue[Priority](priorityWant)
	}
	for q, s := range priorityNames {
		if s != "" && strings.EqualFold(s, name) {
			*p = Priority(q)
			return nil
		}
	}
	return invalidValue[Priority](fmt.Sprintf("%s, got %s", priorityWant, b))
}
