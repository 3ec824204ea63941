package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/lighthttp"
)

// ImportRow is what became (or would become) of one row of the sheet.
type ImportRow struct {
	Row       int       `json:"row"`
	Status    string    `json:"status"` // create, exists, invalid
	Reason    string    `json:"reason,omitempty"`
	Email     string    `json:"email"`
	GPUs      string    `json:"gpus"`
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	Note      string    `json:"note,omitempty"`
	BookingID int64     `json:"booking_id,omitempty"`
	NewUser   bool      `json:"new_user,omitempty"`
}

// ImportReport is the answer of POST /api/v1/bookings/import. Error is
// set when nothing was written because some rows are invalid.
type ImportReport struct {
	Rows     []ImportRow `json:"rows"`
	Create   int         `json:"create"`
	Existing int         `json:"existing"`
	Invalid  int         `json:"invalid"`
	DryRun   bool        `json:"dry_run"`
	Written  bool        `json:"written"`
	Error    string      `json:"error,omitempty"`
	Code     string      `json:"code,omitempty"`
}

// ImportOptions are the query of an import.
type ImportOptions struct {
	DryRun, CreateUsers, SkipInvalid bool
	TZ                               string
}

// ImportBookings sends the sheet (CSV) for import. A refusal because of
// invalid rows (422) is a report, not an error.
func (c *Client) ImportBookings(ctx context.Context, sheet io.Reader, o ImportOptions) (*ImportReport, error) {
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
	var rep ImportReport
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
	e := &Error{Status: status}
	if json.Unmarshal(data, e) != nil || e.Message == "" {
		e.Message = strings.TrimSpace(string(data))
		if e.Message == "" {
			e.Message = lighthttp.StatusText(status)
		}
	}
	return e
}
