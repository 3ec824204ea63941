package handlers

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

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

// Over returns l (the server's limits, from its environment) with each limit
// the policy's booking_limits section sets in its place.
func (l BookingLimits) Over(p scheduler.BookingLimits) BookingLimits {
	if p.MaxGPUs > 0 {
		l.MaxGPUs = p.MaxGPUs
	}
	if p.MaxAhead > 0 {
		l.MaxAhead = time.Duration(p.MaxAhead)
	}
	if p.MaxLength > 0 {
		l.MaxLength = time.Duration(p.MaxLength)
	}
	if p.MaxLive > 0 {
		l.MaxLive = p.MaxLive
	}
	return l
}

// bookingLimits are the limits in force: the policy's, else the server's
// defaults, every one set.
func (h *Handlers) bookingLimits(ctx context.Context, db bun.IDB) (BookingLimits, error) {
	cfg, err := models.SchedulerConfig(ctx, db)
	if err != nil {
		return BookingLimits{}, err
	}
	return h.Config.Bookings.WithDefaults().Over(cfg.BookingLimits), nil
}

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
