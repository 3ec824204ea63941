package scheduler

import (
	"errors"
	"fmt"
)

// FieldError is one problem of a policy tied to the key it is about
// ("idle_after", "las.max_lost_share", "booking_limits.max_gpus"), so that
// a form can show it beside its field. Its sentence names the key too.
type FieldError struct {
	Key string // the key's path in the policy's JSON, dots between sections
	Msg string
}

// Error returns the sentence.
func (e *FieldError) Error() string { return e.Msg }

// keyErr returns a FieldError about key.
func keyErr(key, format string, args ...any) error {
	return &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// FieldErrors lists the FieldErrors in err (as Validate joins them), in
// order; rest holds the problems that are about no one key.
func FieldErrors(err error) (fields []*FieldError, rest []error) {
	if err == nil {
		return nil, nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			f, r := FieldErrors(e)
			fields, rest = append(fields, f...), append(rest, r...)
		}
		return fields, rest
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return []*FieldError{fe}, nil
	}
	return nil, []error{err}
}
