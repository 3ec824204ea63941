package apiclient

import (
	"context"
	"fmt"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Allocate asks for a pre-warm hold through the client agent's route; key,
// when not empty, is sent as the Idempotency-Key.
func (c *Client) Allocate(ctx context.Context, req api.HoldRequest, key string) (*api.Hold, error) {
	var h api.Hold
	if err := c.DoWith(ctx, "POST", api.AllocatePath, req, &h, map[string]string{"Idempotency-Key": key}); err != nil {
		return nil, err
	}
	return &h, nil
}

// ListHolds returns the caller's live and recent holds (everyone's with all,
// which needs no extra right: holds are visible to everyone).
func (c *Client) ListHolds(ctx context.Context, all bool) ([]api.Hold, error) {
	var out api.Holds
	path := "/api/v1/holds"
	if all {
		path += "?all=true"
	}
	if err := c.Do(ctx, "GET", path, nil, &out); err != nil {
		return nil, err
	}
	return out.Holds, nil
}

// CancelHold cancels hold id.
func (c *Client) CancelHold(ctx context.Context, id int64) (*api.Hold, error) {
	var h api.Hold
	if err := c.Do(ctx, "DELETE", fmt.Sprintf("/api/v1/holds/%d", id), nil, &h); err != nil {
		return nil, err
	}
	return &h, nil
}
