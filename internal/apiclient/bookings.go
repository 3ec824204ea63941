package apiclient

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Book claims GPUs for a window.
func (c *Client) Book(ctx context.Context, req api.BookingRequest) (*api.Booking, error) {
	var out api.Booking
	if err := c.Do(ctx, "POST", "/api/v1/bookings", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Bookings lists the live bookings and holds overlapping [from, to); mine
// limits it to the caller's.
func (c *Client) Bookings(ctx context.Context, from, to time.Time, mine bool) ([]api.Booking, error) {
	q := url.Values{"from": {from.UTC().Format(time.RFC3339)}, "to": {to.UTC().Format(time.RFC3339)}}
	if mine {
		q.Set("mine", "true")
	}
	var out struct {
		Bookings []api.Booking `json:"bookings"`
	}
	if err := c.Do(ctx, "GET", "/api/v1/bookings?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.Bookings, nil
}

// CancelBooking cancels a booking.
func (c *Client) CancelBooking(ctx context.Context, id int64) (*api.Booking, error) {
	var out api.Booking
	if err := c.Do(ctx, "DELETE", fmt.Sprintf("/api/v1/bookings/%d", id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
