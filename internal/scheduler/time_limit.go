package scheduler

import (
	"cmp"
	"errors"
	"fmt"
	"time"
)

// TimeLimitPolicy bounds jobs' time limits (Slurm's DefaultTime and
// MaxTime): a job that runs past its limit is stopped and ends timeout. A
// zero field means none: no maximum; no default (a job that asks for no
// limit gets the maximum, as in Slurm, else none).
type TimeLimitPolicy struct {
	// Default is the limit of a job that asks for none; 0: Max.
	Default Duration `json:"default,omitempty"`
	// Max caps what a job may ask for; a submission above it is refused.
	Max Duration `json:"max,omitempty"`
}

// ErrOverMaxTimeLimit is returned for a time limit above the policy's
// maximum.
var ErrOverMaxTimeLimit = errors.New("time limit over the maximum")

// Limit returns the limit of a job that asks for asked (0: none): asked,
// else the policy's default, else its maximum (0: no limit). Above the
// maximum it returns an error wrapping ErrOverMaxTimeLimit that names it.
func (p TimeLimitPolicy) Limit(asked time.Duration) (time.Duration, error) {
	if asked == 0 {
		asked = time.Duration(cmp.Or(p.Default, p.Max))
	}
	if p.Max > 0 && asked > time.Duration(p.Max) {
		return 0, fmt.Errorf("%w: %s asked, the scheduling policy allows at most %s (time_limit.max)",
			ErrOverMaxTimeLimit, asked, time.Duration(p.Max))
	}
	return asked, nil
}

// validate lists what is wrong with p.
func (p TimeLimitPolicy) validate() []error {
	var errs []error
	if p.Default < 0 || p.Max < 0 {
		errs = append(errs, errors.New("time_limit.default and time_limit.max must not be negative (0 means none)"))
	}
	if p.Max > 0 && p.Default > p.Max {
		errs = append(errs, fmt.Errorf("time_limit.default (%s) must not exceed time_limit.max (%s)",
			time.Duration(p.Default), time.Duration(p.Max)))
	}
	return errs
}
