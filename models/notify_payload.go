package models

import (
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// EventPayload is the JSON body every channel carries: ids, names, times,
// GPUs, what the event is about (Job, Booking, Node) and the page's path.
// The models store it without DeliveryID, Path and URL: the delivery
// worker sets them when it sends (the page from internal/pages, the URL
// from the server's base URL), and the in-app list sets Path when it shows
// a notification.
//
// Its times are UTC, and so are the instants its stored Reason names (RFC
// 3339, "given back at 2026-11-29T08:00:00Z"): a notification is rendered
// for its reader with In, which words them in the reader's zone.
type EventPayload struct {
	Event      string        `json:"event"`
	DeliveryID int64         `json:"delivery_id,omitempty"`
	OccurredAt time.Time     `json:"occurred_at"`
	Title      string        `json:"title"`
	Text       string        `json:"text,omitempty"`
	Path       string        `json:"path,omitempty"`
	URL        string        `json:"url,omitempty"`
	Reason     string        `json:"reason,omitempty"`
	Job        *EventJob     `json:"job,omitempty"`
	Booking    *EventBooking `json:"booking,omitempty"`
	Node       *EventNode    `json:"node,omitempty"`
	Idle       *EventIdle    `json:"idle,omitempty"`
	// zone is the reader's zone once In rendered the payload.
	zone *time.Location
}

// In is the payload as loc's reader reads it: the instants of its Reason
// and Text in loc, with the zone's abbreviation ("given back at Sun 29 Nov
// 09:00 CET"). Its fields stay UTC for machines; Zone says loc to the
// channels that word more times (a booking's window).
func (p EventPayload) In(loc *time.Location) EventPayload {
	if loc == nil {
		loc = time.UTC
	}
	p.Reason, p.Text, p.zone = localtime.Instants(p.Reason, loc), localtime.Instants(p.Text, loc), loc
	return p
}

// Zone is the zone the payload was rendered for (In); UTC before.
func (p *EventPayload) Zone() *time.Location {
	if p.zone == nil {
		return time.UTC
	}
	return p.zone
}

// JobID returns the id of the job the event is about, or 0.
func (p *EventPayload) JobID() int64 {
	if p.Job == nil {
		return 0
	}
	return p.Job.ID
}

// BookingID returns the id of the booking or hold the event is about, or 0.
func (p *EventPayload) BookingID() int64 {
	if p.Booking == nil {
		return 0
	}
	return p.Booking.ID
}

// EventJob describes the job an event is about.
type EventJob struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	State       string     `json:"state"`
	Owner       string     `json:"owner"`
	GPUCount    int        `json:"gpu_count"`
	GPUs        []string   `json:"gpus"`
	SubmittedAt time.Time  `json:"submitted_at"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	EndedAt     *time.Time `json:"ended_at,omitempty"`
	DurationS   int64      `json:"duration_s"`
	ExitCode    *int       `json:"exit_code,omitempty"`
}

// EventBooking describes the booking or hold an event is about.
type EventBooking struct {
	ID       int64     `json:"id"`
	Kind     string    `json:"kind"`
	Owner    string    `json:"owner"`
	GPUCount int       `json:"gpu_count"`
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at"`
}

// EventNode describes the node an event is about.
type EventNode struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// EventIdle tells how long an allocation sat idle and what happens next.
type EventIdle struct {
	IdleSinceAt  time.Time  `json:"idle_since"`
	IdleS        int64      `json:"idle_s"`
	ReclaimAt    *time.Time `json:"reclaim_at,omitempty"`
	ThresholdPct int        `json:"threshold_pct"`
}

// NotifyEvent is something that happened, to be told to its recipients.
type NotifyEvent struct {
	Name string
	// Subject names what the event is about ("job:42"); with Name and the
	// channel it makes the delivery's deduplication key.
	Subject string
	// Users are the recipients by preference (the owner); admins are added
	// for AdminEvents.
	Users   []int64
	Payload EventPayload
}

func dedupKey(ev *NotifyEvent, channel string) string {
	return fmt.Sprintf("%s|%s|%s", ev.Name, ev.Subject, channel)
}
