package apiclient

import (
	"context"
	"fmt"
	"net/url"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// JobLogs reads job id's output from offset on.
func (c *Client) JobLogs(ctx context.Context, id, offset int64) (*api.JobLog, error) {
	return c.JobRunLogs(ctx, id, 0, offset)
}

// JobRunLogs reads the output of run (1 = the first; 0 the newest) of job
// id from offset on.
func (c *Client) JobRunLogs(ctx context.Context, id int64, run int, offset int64) (*api.JobLog, error) {
	path := fmt.Sprintf("/api/v1/jobs/%d/logs?offset=%d", id, offset)
	if run > 0 {
		path += fmt.Sprintf("&run=%d", run)
	}
	return c.jobLogs(ctx, path)
}

// JobPartLogs reads the output of part (its node rank, 0 = the first
// node) of run (1 = the first; 0 the newest) of multi-node job id from
// offset on.
func (c *Client) JobPartLogs(ctx context.Context, id int64, run, part int, offset int64) (*api.JobLog, error) {
	path := fmt.Sprintf("/api/v1/jobs/%d/logs?offset=%d&part=%d", id, offset, part)
	if run > 0 {
		path += fmt.Sprintf("&run=%d", run)
	}
	return c.jobLogs(ctx, path)
}

func (c *Client) jobLogs(ctx context.Context, path string) (*api.JobLog, error) {
	var out api.JobLog
	if err := c.Do(ctx, "GET", path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func queryEscape(s string) string { return url.QueryEscape(s) }
