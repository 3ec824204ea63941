package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// JobLog is a stretch of a job's output: GET /api/v1/jobs/{id}/logs.
type JobLog struct {
	JobID  int64  `json:"job_id"`
	Offset int64  `json:"offset"`      // where Data starts (later than asked when older output was dropped)
	Next   int64  `json:"next_offset"` // ask for this next
	Data   string `json:"data"`
	State  string `json:"state"`
	Done   bool   `json:"done"` // the job ended and all its output is here
}

// JobLogs reads job id's output from offset on.
func (c *Client) JobLogs(ctx context.Context, id, offset int64) (*JobLog, error) {
	var out JobLog
	if err := c.Do(ctx, http.MethodGet, fmt.Sprintf("/api/v1/jobs/%d/logs?offset=%d", id, offset), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func queryEscape(s string) string { return url.QueryEscape(s) }
