// Package nethttp lets an apiclient.Client send its requests through a
// net/http client: for the long-running node and client agents, which keep
// connections open between their many requests (heartbeats every few
// seconds), where the CLI's default transport opens one per call.
package nethttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/lighthttp"
)

// Transport sends apiclient requests through an *http.Client.
type Transport struct {
	Client *http.Client
	// MaxBody caps an answer's body in bytes; 0: lighthttp.DefaultMaxBody.
	MaxBody int64
}

// New returns a Transport over c.
func New(c *http.Client) *Transport { return &Transport{Client: c} }

// Do sends req and reads its answer in full.
func (t *Transport) Do(ctx context.Context, req *lighthttp.Request) (*lighthttp.Response, error) {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return nil, err
	}
	for k, v := range req.Header {
		if v != "" {
			hr.Header.Set(k, v)
		}
	}
	resp, err := t.Client.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	limit := t.MaxBody
	if limit <= 0 {
		limit = lighthttp.DefaultMaxBody
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read answer of %s %s: %w", req.Method, req.URL, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("answer of %s %s: body over %d bytes", req.Method, req.URL, limit)
	}
	h := make(map[string][]string, len(resp.Header))
	for k, v := range resp.Header {
		h[strings.ToLower(k)] = v
	}
	return &lighthttp.Response{StatusCode: resp.StatusCode, Status: resp.Status, Header: h, Body: data}, nil
}
