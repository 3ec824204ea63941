package apiclient

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Commands long-polls node id's pending commands for up to wait.
func (c *Client) Commands(ctx context.Context, id int64, wait time.Duration) (*api.NodeCommands, error) {
	var out api.NodeCommands
	path := fmt.Sprintf("/api/v1/nodes/%d/commands?wait=%d", id, int(wait.Seconds()))
	if err := c.Do(ctx, "GET", path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AnswerCommand reports the result of command cmd of node id.
func (c *Client) AnswerCommand(ctx context.Context, id, cmd int64, res api.CommandResult) error {
	return c.Do(ctx, "POST", fmt.Sprintf("/api/v1/nodes/%d/commands/%d/result", id, cmd), res, nil)
}

// ReportExit reports how the run of start command cmd ended.
func (c *Client) ReportExit(ctx context.Context, id, cmd int64, exit api.JobExit) error {
	return c.Do(ctx, "POST", fmt.Sprintf("/api/v1/nodes/%d/commands/%d/exit", id, cmd), exit, nil)
}

// ShipLog sends a chunk of the output of the run of start command cmd.
func (c *Client) ShipLog(ctx context.Context, id, cmd int64, chunk api.LogChunk) error {
	return c.Do(ctx, "POST", fmt.Sprintf("/api/v1/nodes/%d/commands/%d/logs", id, cmd), chunk, nil)
}

// SessionReady reports that the server of session job, run by node id,
// answers, and where the agent's session listener is reached.
func (c *Client) SessionReady(ctx context.Context, id, job int64, r api.SessionReady) error {
	return c.Do(ctx, "POST", fmt.Sprintf("/api/v1/nodes/%d/sessions/%d/ready", id, job), r, nil)
}
