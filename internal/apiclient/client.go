// Package apiclient is the Go client of GPUScheduler's JSON API, shared by the
// CLI, the node agent and the client agent: one method per route it calls,
// taking and returning the wire types of internal/api. A refused request
// is an *api.Error.
package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/lighthttp"
)

// Transport sends one request and returns its answer, body read in full.
// The default is a *lighthttp.Client, which does not link net/http (the CLI
// starts faster without it); long-running agents that want net/http's
// connection pool use apiclient/nethttp.
type Transport interface {
	Do(ctx context.Context, req *lighthttp.Request) (*lighthttp.Response, error)
}

// Client calls one control plane with one token.
type Client struct {
	BaseURL   string
	Token     string
	Transport Transport
	// UserAgent is sent with every request.
	UserAgent string
}

// New returns a client for baseURL with token, a 30 s timeout and the
// environment's proxy settings.
func New(baseURL, token string) *Client {
	return &Client{
		BaseURL:   strings.TrimRight(baseURL, "/"),
		Token:     token,
		Transport: &lighthttp.Client{Timeout: 30 * time.Second, Proxy: lighthttp.ProxyFromEnvironment},
		UserAgent: "gpusched",
	}
}

// Do sends method path with body encoded as JSON (when not nil) and decodes
// a 2xx answer into out (when not nil). Other answers become *api.Error.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	return c.DoWith(ctx, method, path, body, out, nil)
}

// DoWith is Do with extra request headers (empty values are not sent).
func (c *Client) DoWith(ctx context.Context, method, path string, body, out any, headers map[string]string) error {
	var b []byte
	h := map[string]string{"Accept": "application/json"}
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return fmt.Errorf("apiclient: encode %s %s: %w", method, path, err)
		}
		h["Content-Type"] = "application/json"
	}
	for k, v := range headers {
		h[k] = v
	}
	status, data, err := c.send(ctx, method, path, h, b)
	if err != nil {
		return err
	}
	if status < 200 || status > 299 {
		return answerError(status, data)
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("apiclient: decode answer of %s %s: %w", method, path, err)
		}
	}
	return nil
}

// send sends method path with the headers, the token and the User-Agent,
// and returns the answer's status and body.
func (c *Client) send(ctx context.Context, method, path string, headers map[string]string, body []byte) (int, []byte, error) {
	if c.Token != "" {
		headers["Authorization"] = "Bearer " + c.Token
	}
	if c.UserAgent != "" {
		headers["User-Agent"] = c.UserAgent
	}
	resp, err := c.Transport.Do(ctx, &lighthttp.Request{Method: method, URL: c.BaseURL + path, Header: headers, Body: body})
	if err != nil {
		return 0, nil, fmt.Errorf("apiclient: %s %s: %w", method, path, err)
	}
	return resp.StatusCode, resp.Body, nil
}
