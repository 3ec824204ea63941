package apiclient

import (
	"context"
	"net/url"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// History lists ended jobs; q holds GET /api/v1/history's filters
// (mine, user, state, from, to, since, limit, cursor).
func (c *Client) History(ctx context.Context, q url.Values) (*api.History, error) {
	var out api.History
	if err := c.Do(ctx, "GET", "/api/v1/history?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Accounting reads GPU time and cost per user or team; q holds GET
// /api/v1/accounting's parameters (month or week, by, tz).
func (c *Client) Accounting(ctx context.Context, q url.Values) (*api.Accounting, error) {
	var out api.Accounting
	if err := c.Do(ctx, "GET", "/api/v1/accounting?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AccountingCSV downloads the accounting sheet the page offers.
func (c *Client) AccountingCSV(ctx context.Context, q url.Values) ([]byte, error) {
	q.Set("format", "csv")
	status, data, err := c.raw(ctx, "GET", "/api/v1/accounting?"+q.Encode(), "", nil)
	if err != nil {
		return nil, err
	}
	if status != 200 {
		return nil, answerError(status, data)
	}
	return data, nil
}
