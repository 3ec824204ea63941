package models

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// ClashRival is one booking or hold that competes for the GPUs a booking
// asks for: who holds it, which GPUs and when. Row is set instead of ID
// for a row of the same import or an occurrence of the same series that
// is not written yet.
type ClashRival struct {
	ID       int64     `json:"id,omitempty"`
	Row      int       `json:"row,omitempty"`
	Kind     string    `json:"kind"`
	Owner    string    `json:"user"`
	GPUs     string    `json:"gpus"`
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at"`
}

// ClashError is the refusal of a booking (created, edited, imported or an
// occurrence of a series) whose GPUs are not free at At: it names the
// competing bookings. errors.Is(err, ErrBookingClash) holds.
type ClashError struct {
	What   string // the GPUs asked for, "2 H100 GPUs"
	Count  int    // how many
	At     time.Time
	Rivals []ClashRival
}

// Error says which GPUs are not free when, and who holds them, in UTC (for
// logs); people read Sentence in their zone.
func (e *ClashError) Error() string {
	return ErrBookingClash.Error() + ": " + e.Sentence(time.UTC)
}

// Sentence says which GPUs are not free when, and who holds them, with
// times in loc: "2 H100 GPUs are not free at Mon 23 Nov 09:00 CET: it
// clashes with …".
func (e *ClashError) Sentence(loc *time.Location) string {
	return fmt.Sprintf("%s %s not free at %s: it clashes with %s", e.What, isAre(e.Count), localtime.Stamp(e.At, loc), e.Who(loc))
}

// Who names the rivals, times in loc: "ana@x's booking #12 of 2 H100
// GPUs, Mon 23 Nov 09:00–18:00 CET; row 4 of …".
func (e *ClashError) Who(loc *time.Location) string {
	var who []string
	for _, r := range e.Rivals {
		switch {
		case r.Row > 0:
			who = append(who, fmt.Sprintf("row %d (%s's %s of %s, %s)", r.Row, r.Owner, r.Kind, r.GPUs, localtime.Window(r.StartsAt, r.EndsAt, loc)))
		default:
			who = append(who, fmt.Sprintf("%s's %s #%d of %s, %s", r.Owner, r.Kind, r.ID, r.GPUs, localtime.Window(r.StartsAt, r.EndsAt, loc)))
		}
	}
	if len(who) == 0 {
		return "the GPUs' other claims"
	}
	return strings.Join(who, "; ")
}

// Is makes errors.Is(err, ErrBookingClash) true.
func (e *ClashError) Is(target error) bool { return target == ErrBookingClash }
