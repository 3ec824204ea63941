// Package apiclient is the Go client of GPUScheduler's JSON API, shared by the
// CLI, the node agent and the client agent. It also defines the wire types
// of the routes it calls, so that server and clients cannot drift apart.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client calls one control plane with one token.
type Client struct {
	BaseURL string
	Token   string
	HTTP    *http.Client
	// UserAgent is sent with every request.
	UserAgent string
}

// New returns a client for baseURL with token and a sensible timeout.
func New(baseURL, token string) *Client {
	return &Client{
		BaseURL:   strings.TrimRight(baseURL, "/"),
		Token:     token,
		HTTP:      &http.Client{Timeout: 30 * time.Second},
		UserAgent: "gpusched",
	}
}

// Error is an error answer of the API: its status and the flat JSON body
// {"error": …, "code": …}.
type Error struct {
	Status  int    `json:"-"`
	Message string `json:"error"`
	Code    string `json:"code"`
}

// Error returns the server's sentence with the status.
func (e *Error) Error() string {
	return fmt.Sprintf("%s (HTTP %d, %s)", e.Message, e.Status, e.Code)
}

// IsStatus reports whether err is an API error with the given status.
func IsStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}

// Do sends method path with body encoded as JSON (when not nil) and decodes
// a 2xx answer into out (when not nil). Other answers become *Error.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	return c.DoWith(ctx, method, path, body, out, nil)
}

// DoWith is Do with extra request headers (empty values are not sent).
func (c *Client) DoWith(ctx context.Context, method, path string, body, out any, headers map[string]string) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("apiclient: encode %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return fmt.Errorf("apiclient: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("apiclient: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return fmt.Errorf("apiclient: read answer of %s %s: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := &Error{Status: resp.StatusCode}
		if json.Unmarshal(data, apiErr) != nil || apiErr.Message == "" {
			apiErr.Message = strings.TrimSpace(string(data))
			if apiErr.Message == "" {
				apiErr.Message = http.StatusText(resp.StatusCode)
			}
		}
		return apiErr
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("apiclient: decode answer of %s %s: %w", method, path, err)
		}
	}
	return nil
}
