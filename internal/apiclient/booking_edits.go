package apiclient

import (
	"context"
	"fmt"
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
	if err := c.Do(ctx, "GET", fmt.Sprintf("/api/v1/bookings/%d", id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EditBooking changes a booking (extend, shorten, move, count, GPUs, note).
func (c *Client) EditBooking(ctx context.Context, id int64, p BookingPatch) (*Booking, error) {
	var out Booking
	if err := c.Do(ctx, "PATCH", fmt.Sprintf("/api/v1/bookings/%d", id), p, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EndBooking ends an active booking now, freeing its GPUs.
func (c *Client) EndBooking(ctx context.Context, id int64) (*Booking, error) {
	var out Booking
	if err := c.Do(ctx, "POST", fmt.Sprintf("/api/v1/bookings/%d/end", id), struct{}{}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SeriesRequest is the body of POST /api/v1/bookings/series: the same
// GPUs on the given weekdays from first_day to last_day, start_time to
// end_time in time_zone (an end at or before the start is the next day).
type SeriesRequest struct {
	GPUCount  int      `json:"gpu_count,omitempty"`
	GPUModel  string   `json:"gpu_model,omitempty"`
	GPUIDs    []int64  `json:"gpu_ids,omitempty"`
	Note      string   `json:"note,omitempty"`
	TimeZone  string   `json:"time_zone,omitempty"` // IANA name; default UTC
	FirstDay  string   `json:"first_day"`           // 2026-11-30
	LastDay   string   `json:"last_day"`            // 2026-12-11, inclusive
	Days      []string `json:"days,omitempty"`      // mon … sun; default: first_day's weekday
	StartTime string   `json:"start_time"`          // 09:00
	EndTime   string   `json:"end_time"`            // 18:00
}

// Series is a created series and its occurrences.
type Series struct {
	SeriesID int64     `json:"series_id"`
	Bookings []Booking `json:"bookings"`
}

// CreateSeries books a recurring series.
func (c *Client) CreateSeries(ctx context.Context, req SeriesRequest) (*Series, error) {
	var out Series
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
