package models

import (
	"fmt"
	"strings"
	"time"
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

// Error says which GPUs are not free when, and who holds them.
func (e *ClashError) Error() string {
	return fmt.Sprintf("%s: %s %s not free at %s: it clashes with %s", ErrBookingClash.Error(), e.What,
		isAre(e.Count), e.At.UTC().Format("Mon 2 Jan 15:04 UTC"), e.Who())
}

// Who names the rivals: "ana@x's booking #12 of 2 H100 GPUs, Mon 23 Nov
// 09:00–18:00 UTC; row 4 of …".
func (e *ClashError) Who() string {
	var who []string
	for _, r := range e.Rivals {
		switch {
		case r.Row > 0:
			who = append(who, fmt.Sprintf("row %d (%s's %s of %s, %s)", r.Row, r.Owner, r.Kind, r.GPUs, Window(r.StartsAt, r.EndsAt)))
		default:
			who = append(who, fmt.Sprintf("%s's %s #%d of %s, %s", r.Owner, r.Kind, r.ID, r.GPUs, Window(r.StartsAt, r.EndsAt)))
		}
	}
	if len(who) == 0 {
		return "the GPUs' other claims"
	}
	return strings.Join(who, "; ")
}

// Is makes errors.Is(err, ErrBookingClash) true.
func (e *ClashError) Is(target error) bool { return target == ErrBookingClash }
