package apiclient

import (
	"context"
	"fmt"
	"net/url"
	"time"
)

// BookingRequest is the body of POST /api/v1/bookings: a count of GPUs (of
// a type, or any) or specific GPU ids, for a window.
type BookingRequest struct {
	GPUCount int       `json:"gpu_count,omitempty"`
	GPUModel string    `json:"gpu_model,omitempty"`
	GPUIDs   []int64   `json:"gpu_ids,omitempty"`
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at"`
	Note     string    `json:"note,omitempty"`
}

// Booking is a calendar booking (kind "booking") or an agent's pre-warm
// hold (kind "hold").
type Booking struct {
	ID        int64     `json:"id"`
	Kind      string    `json:"kind"`
	User      string    `json:"user"`
	GPUCount  int       `json:"gpu_count"`
	GPUModel  string    `json:"gpu_model,omitempty"`
	GPUIDs    []int64   `json:"gpu_ids,omitempty"`
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	Note      string    `json:"note,omitempty"`
	State     string    `json:"state"` // upcoming, active, ended, canceled
	CreatedAt time.Time `json:"created_at"`
	// Edits and series.
	SeriesID  *int64    `json:"series_id,omitempty"`
	Sequence  int       `json:"sequence"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Book claims GPUs for a window.
func (c *Client) Book(ctx context.Context, req BookingRequest) (*Booking, error) {
	var out Booking
	if err := c.Do(ctx, "POST", "/api/v1/bookings", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Bookings lists the live bookings and holds overlapping [from, to); mine
// limits it to the caller's.
func (c *Client) Bookings(ctx context.Context, from, to time.Time, mine bool) ([]Booking, error) {
	q := url.Values{"from": {from.UTC().Format(time.RFC3339)}, "to": {to.UTC().Format(time.RFC3339)}}
	if mine {
		q.Set("mine", "true")
	}
	var out struct {
		Bookings []Booking `json:"bookings"`
	}
	if err := c.Do(ctx, "GET", "/api/v1/bookings?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.Bookings, nil
}

// CancelBooking cancels a booking.
func (c *Client) CancelBooking(ctx context.Context, id int64) (*Booking, error) {
	var out Booking
	if err := c.Do(ctx, "DELETE", fmt.Sprintf("/api/v1/bookings/%d", id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
