package apiclient

import (
	"context"
	"fmt"
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
	// Run is which of the job's Runs on nodes this is (1 = the first; a job
	// preempted or requeued has several); both 0 for Ray jobs.
	Run  int `json:"run,omitempty"`
	Runs int `json:"runs,omitempty"`
}

// JobLogs reads job id's output from offset on.
func (c *Client) JobLogs(ctx context.Context, id, offset int64) (*JobLog, error) {
	return c.JobRunLogs(ctx, id, 0, offset)
}

// JobRunLogs reads the output of run (1 = the first; 0 the newest) of job
// id from offset on.
func (c *Client) JobRunLogs(ctx context.Context, id int64, run int, offset int64) (*JobLog, error) {
	path := fmt.Sprintf("/api/v1/jobs/%d/logs?offset=%d", id, offset)
	if run > 0 {
		path += fmt.Sprintf("&run=%d", run)
	}
	var out JobLog
	if err := c.Do(ctx, "GET", path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func queryEscape(s string) string { return url.QueryEscape(s) }
