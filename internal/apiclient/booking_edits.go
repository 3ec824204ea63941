package apiclient

import (
	"context"
	"fmt"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// GetBooking returns one booking.
func (c *Client) GetBooking(ctx context.Context, id int64) (*api.Booking, error) {
	var out api.Booking
	if err := c.Do(ctx, "GET", fmt.Sprintf("/api/v1/bookings/%d", id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EditBooking changes a booking (extend, shorten, move, count, GPUs, note).
func (c *Client) EditBooking(ctx context.Context, id int64, p api.BookingPatch) (*api.Booking, error) {
	var out api.Booking
	if err := c.Do(ctx, "PATCH", fmt.Sprintf("/api/v1/bookings/%d", id), p, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EndBooking ends an active booking now, freeing its GPUs.
func (c *Client) EndBooking(ctx context.Context, id int64) (*api.Booking, error) {
	var out api.Booking
	if err := c.Do(ctx, "POST", fmt.Sprintf("/api/v1/bookings/%d/end", id), struct{}{}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateSeries books a recurring series.
func (c *Client) CreateSeries(ctx context.Context, req api.SeriesRequest) (*api.Series, error) {
	var out api.Series
	if err := c.Do(ctx, "POST", "/api/v1/bookings/series", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelSeries cancels every occurrence of a series that has not ended.
func (c *Client) CancelSeries(ctx context.Context, id int64) (int, error) {
	var out struct {
		Canceled int `json:"canceled"`
	}
	if err := c.Do(ctx, "DELETE", fmt.Sprintf("/api/v1/bookings/series/%d", id), nil, &out); err != nil {
		return 0, err
	}
	return out.Canceled, nil
}
