package scheduler

import "time"

// BookingLimits bound what one member may book in the calendar: the
// policy's "booking_limits" section. A field left out (zero) takes the
// server's default, which its environment sets (GPUSCHED_BOOKING_MAX_GPUS,
// _MAX_AHEAD, _MAX_LENGTH, _MAX_LIVE).
type BookingLimits struct {
	// MaxGPUs is the most GPUs one booking may take.
	MaxGPUs int `json:"max_gpus,omitzero"`
	// MaxAhead is how far ahead of now a booking may start.
	MaxAhead Duration `json:"max_ahead,omitzero"`
	// MaxLength is the longest a booking may last.
	MaxLength Duration `json:"max_length,omitzero"`
	// MaxLive is how many upcoming and active bookings one member may have
	// (a series counts once). An admin's import is not held to it.
	MaxLive int `json:"max_live,omitzero"`
}

// Bounds of the booking limits an admin may set.
const (
	maxBookingGPUs = 4096
	maxBookingLive = 10000
)

func (b BookingLimits) validate() []error {
	var errs []error
	if b.MaxGPUs < 0 || b.MaxGPUs > maxBookingGPUs {
		errs = append(errs, keyErr("booking_limits.max_gpus", "booking_limits.max_gpus must be between 1 and %d (0 or left out: the server's default)", maxBookingGPUs))
	}
	if b.MaxAhead < 0 {
		errs = append(errs, keyErr("booking_limits.max_ahead", "booking_limits.max_ahead must not be negative (0 or left out: the server's default)"))
	} else if b.MaxAhead > 0 && time.Duration(b.MaxAhead) < time.Hour {
		errs = append(errs, keyErr("booking_limits.max_ahead", "booking_limits.max_ahead is %s; it must be at least 1h", time.Duration(b.MaxAhead)))
	}
	if b.MaxLength < 0 {
		errs = append(errs, keyErr("booking_limits.max_length", "booking_limits.max_length must not be negative (0 or left out: the server's default)"))
	} else if b.MaxLength > 0 && time.Duration(b.MaxLength) < 15*time.Minute {
		errs = append(errs, keyErr("booking_limits.max_length", "booking_limits.max_length is %s; it must be at least 15m", time.Duration(b.MaxLength)))
	}
	if b.MaxLive < 0 || b.MaxLive > maxBookingLive {
		errs = append(errs, keyErr("booking_limits.max_live", "booking_limits.max_live must be between 1 and %d (0 or left out: the server's default)", maxBookingLive))
	}
	return errs
}
