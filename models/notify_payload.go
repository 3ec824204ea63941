package models

import (
	"fmt"
	"time"
)

// EventPayload is the JSON body every channel carries: ids, names, times,
// GPUs, what the event is about (Job, Booking, Node) and the page's path.
// The models store it without DeliveryID, Path and URL: the delivery
// worker sets them when it sends (the page from internal/pages, the URL
// from the server's base URL), and the in-app list sets Path when it shows
// a notification.
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
