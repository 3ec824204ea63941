package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// BookingPatch is the body of PATCH /api/v1/bookings/{id}: the fields to
// change; absent fields keep their value. gpu_ids names GPUs instead of a
// count (an empty list goes back to a count).
type BookingPatch struct {
	StartsAt *time.Time `json:"starts_at,omitempty"`
	EndsAt   *time.Time `json:"ends_at,omitempty"`
	GPUCount *int       `json:"gpu_count,omitempty"`
	GPUIDs   *[]int64   `json:"gpu_ids,omitempty"`
	Note     *string    `json:"note,omitempty"`
}

// GetBooking returns one booking.
func (c *Client) GetBooking(ctx context.Context, id int64) (*Booking, error) {
	var out Booking
	if err := c.Do(ctx, http.MethodGet, fmt.Sprintf("/api/v1/bookings/%d", id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EditBooking changes a booking (extend, shorten, move, count, GPUs, note).
func (c *Client) EditBooking(ctx context.Context, id int64, p BookingPatch) (*Booking, error) {
	var out Booking
	if err := c.Do(ctx, http.MethodPatch, fmt.Sprintf("/api/v1/bookings/%d", id), p, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EndBooking ends an active booking now, freeing its GPUs.
func (c *Client) EndBooking(ctx context.Context, id int64) (*Booking, error) {
	var out Booking
	if err := c.Do(ctx, http.MethodPost, fmt.Sprintf("/api/v1/bookings/%d/end", id), struct{}{}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
