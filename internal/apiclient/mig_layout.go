package apiclient

import (
	"context"
	"net/url"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// SetMIGLayout declares node's MIG layout (admins; nil: none) and returns
// it as stored, with its agent's last report.
func (c *Client) SetMIGLayout(ctx context.Context, node string, layout *string) (*api.MIGLayoutStatus, error) {
	var out api.MIGLayoutStatus
	if err := c.Do(ctx, "PUT", "/api/v1/cluster/nodes/"+url.PathEscape(node)+"/mig-layout", api.MIGLayoutRequest{Layout: layout}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
