package apiclient

import (
	"context"
	"fmt"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// CreateSession asks for an interactive session (POST /api/v1/sessions);
// key, when not empty, is sent as the Idempotency-Key.
func (c *Client) CreateSession(ctx context.Context, req api.SessionRequest, key string) (*api.Session, error) {
	var s api.Session
	if err := c.DoWith(ctx, "POST", "/api/v1/sessions", req, &s, map[string]string{"Idempotency-Key": key}); err != nil {
		return nil, fmt.Errorf("apiclient: create %s session: %w", req.Kind, err)
	}
	return &s, nil
}
