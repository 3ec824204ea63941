package apiclient

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// CreateLease queues a lease pinned to node id.
func (c *Client) CreateLease(ctx context.Context, id int64, req api.NodeLeaseRequest) (*api.NodeLease, error) {
	var out api.NodeLease
	if err := c.Do(ctx, "POST", fmt.Sprintf("/api/v1/nodes/%d/leases", id), req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// WaitLease returns lease job's state once it differs from state, or after wait.
func (c *Client) WaitLease(ctx context.Context, id, job int64, state string, wait time.Duration) (*api.NodeLease, error) {
	var out api.NodeLease
	path := fmt.Sprintf("/api/v1/nodes/%d/leases/%d?wait=%d&state=%s", id, job, int(wait.Seconds()), state)
	if err := c.Do(ctx, "GET", path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EndLease ends lease job (withdraws it while it waits).
func (c *Client) EndLease(ctx context.Context, id, job int64, reason string) error {
	return c.Do(ctx, "DELETE", fmt.Sprintf("/api/v1/nodes/%d/leases/%d?reason=%s", id, job, queryEscape(reason)), nil, nil)
}

// ListLeases returns node id's live leases (waiting or granted), oldest
// first: what an agent that starts finds to adopt or end.
func (c *Client) ListLeases(ctx context.Context, id int64) ([]api.NodeLease, error) {
	var out []api.NodeLease
	if err := c.Do(ctx, "GET", fmt.Sprintf("/api/v1/nodes/%d/leases", id), nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}
