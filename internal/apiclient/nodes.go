package apiclient

import (
	"context"
	"fmt"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// RegisterNode registers the node the client's token belongs to.
func (c *Client) RegisterNode(ctx context.Context, req api.RegisterNodeRequest) (*api.RegisterNodeResponse, error) {
	var out api.RegisterNodeResponse
	if err := c.Do(ctx, "POST", "/api/v1/nodes/register", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Heartbeat sends one heartbeat for node id.
func (c *Client) Heartbeat(ctx context.Context, id int64, req api.HeartbeatRequest) (*api.HeartbeatResponse, error) {
	var out api.HeartbeatResponse
	if err := c.Do(ctx, "POST", fmt.Sprintf("/api/v1/nodes/%d/heartbeat", id), req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// NodeSelf asks which node the client's token belongs to, and the server's time.
func (c *Client) NodeSelf(ctx context.Context) (*api.NodeSelf, error) {
	var out api.NodeSelf
	if err := c.Do(ctx, "GET", "/api/v1/nodes/self", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ReportMemory sends a node's readings of share jobs' GPU memory; the
// answer says what the server did about each (warned, stopping…).
func (c *Client) ReportMemory(ctx context.Context, id int64, req api.MemoryReadingsRequest) (*api.MemoryReadingsResponse, error) {
	var out api.MemoryReadingsResponse
	if err := c.Do(ctx, "POST", fmt.Sprintf("/api/v1/nodes/%d/memory", id), req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
