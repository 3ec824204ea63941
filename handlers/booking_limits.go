package handlers

import "time"

// BookingLimits bounds what one user may book in the calendar. A zero field
// takes its default.
type BookingLimits struct {
	MaxGPUs   int           // GPUs in one booking (default 8)
	MaxAhead  time.Duration // how far ahead a booking may start (default 30 days)
	MaxLength time.Duration // longest booking (default 72h)
	MaxLive   int           // upcoming and active bookings per user (default 5)
}

// Booking limit defaults.
const (
	defaultBookingMaxGPUs   = 8
	defaultBookingMaxAhead  = 30 * 24 * time.Hour
	defaultBookingMaxLength = 72 * time.Hour
	defaultBookingMaxLive   = 5
)

// WithDefaults returns l with every zero field set to its default.
func (l BookingLimits) WithDefaults() BookingLimits {
	if l.MaxGPUs <= 0 {
		l.MaxGPUs = defaultBookingMaxGPUs
	}
	if l.MaxAhead <= 0 {
		l.MaxAhead = defaultBookingMaxAhead
	}
	if l.MaxLength <= 0 {
		l.MaxLength = defaultBookingMaxLength
	}
	if l.MaxLive <= 0 {
		l.MaxLive = defaultBookingMaxLive
	}
	return l
}
