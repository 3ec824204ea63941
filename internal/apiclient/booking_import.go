package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/lighthttp"
)

// ImportBookings sends the sheet (CSV) for import. A refusal because of
// invalid rows (422) is a report, not an error.
func (c *Client) ImportBookings(ctx context.Context, sheet io.Reader, o api.ImportOptions) (*api.ImportReport, error) {
	q := url.Values{}
	for name, v := range map[string]bool{"dry_run": o.DryRun, "create_users": o.CreateUsers, "skip_invalid": o.SkipInvalid} {
		if v {
			q.Set(name, "true")
		}
	}
	if o.TZ != "" {
		q.Set("tz", o.TZ)
	}
	body, err := io.ReadAll(sheet)
	if err != nil {
		return nil, fmt.Errorf("apiclient: read the sheet: %w", err)
	}
	status, data, err := c.raw(ctx, "POST", "/api/v1/bookings/import?"+q.Encode(), "text/csv", body)
	if err != nil {
		return nil, err
	}
	var rep api.ImportReport
	if status == 200 || status == 422 {
		if err := json.Unmarshal(data, &rep); err == nil && rep.Rows != nil {
			return &rep, nil
		}
	}
	return nil, answerError(status, data)
}

// ExportBookings downloads the bookings between from and until (zero:
// the server's default) as format "csv" (times in tz) or "ics".
func (c *Client) ExportBookings(ctx context.Context, from, until time.Time, format, tz string) ([]byte, error) {
	q := url.Values{"format": {format}}
	if !from.IsZero() {
		q.Set("from", from.UTC().Format(time.RFC3339))
	}
	if !until.IsZero() {
		q.Set("until", until.UTC().Format(time.RFC3339))
	}
	if tz != "" {
		q.Set("tz", tz)
	}
	status, data, err := c.raw(ctx, "GET", "/api/v1/bookings/export?"+q.Encode(), "", nil)
	if err != nil {
		return nil, err
	}
	if status != 200 {
		return nil, answerError(status, data)
	}
	return data, nil
}

// raw sends a body that is not JSON and returns the status and answer.
func (c *Client) raw(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error) {
	return c.send(ctx, method, path, map[string]string{"Content-Type": contentType}, body)
}

// answerError is the Error of a refused request.
func answerError(status int, data []byte) error {
	e := &api.Error{Status: status}
	if json.Unmarshal(data, e) != nil || e.Message == "" {
		e.Message = strings.TrimSpace(string(data))
		if e.Message == "" {
			e.Message = lighthttp.StatusText(status)
		}
	}
	return e
}
