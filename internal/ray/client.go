// Package ray is a client of the Ray Jobs REST API served by a Ray head's
// dashboard (default port 8265): version, submit, list, get, logs, stop and
// delete. GPUScheduler keeps jobs queued until their GPUs are free and only
// then hands them to Ray, pinned to the node and GPUs it chose (pin.go).
package ray

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds one request when Client.HTTP has no timeout of its own.
const DefaultTimeout = 10 * time.Second

// Client talks to one Ray cluster's Jobs API.
type Client struct {
	// Base is the dashboard address, e.g. http://ray-head:8265.
	Base string
	// Header is added to every request (an auth header in front of Ray), if set.
	HeaderName, HeaderValue string
	// HTTP sends the requests; nil: a client with DefaultTimeout.
	HTTP *http.Client
}

// New returns a client of the Jobs API at base (http or https URL).
func New(base string) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("ray: address %q must be an http(s) URL like http://ray-head:8265", base)
	}
	return &Client{Base: strings.TrimRight(base, "/"), HTTP: &http.Client{Timeout: DefaultTimeout}}, nil
}

// Error is a request Ray answered with a status other than 2xx.
type Error struct {
	Method, Path string
	Status       int
	Body         string // what Ray said (Ray often answers a Python traceback as text)
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("ray: %s %s: %d %s: %s", e.Method, e.Path, e.Status, http.StatusText(e.Status), e.Message())
}

// Message is the last non-empty line of Ray's answer: the exception text of
// a traceback, or the whole answer.
func (e *Error) Message() string {
	lines := strings.Split(strings.TrimSpace(e.Body), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			return s
		}
	}
	return ""
}

// IsNotFound reports whether err is Ray's 404 (unknown job id).
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// IsPermanent reports whether err is a refusal that a retry cannot change:
// any 4xx answer (bad request, unknown job). Network errors, timeouts and
// 5xx are transient.
func IsPermanent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status >= 400 && e.Status < 500 && e.Status != http.StatusTooManyRequests &&
		e.Status != http.StatusRequestTimeout
}

// IsAlreadyExists reports whether err is Ray's refusal of a submission_id it
// already has: a retried submission that had in fact gone through.
func IsAlreadyExists(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusBadRequest && strings.Contains(e.Body, "already exists")
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("ray: %s %s: encode: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, body)
	if err != nil {
		return fmt.Errorf("ray: %s %s: %w", method, path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.HeaderName != "" {
		req.Header.Set(c.HeaderName, c.HeaderValue)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("ray: %s %s: %w", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("ray: %s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return &Error{Method: method, Path: path, Status: resp.StatusCode, Body: string(raw)}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("ray: %s %s: decode answer %.200q: %w", method, path, raw, err)
	}
	return nil
}

// Version is the answer of GET /api/version.
type Version struct {
	Version    string `json:"version"`
	RayVersion string `json:"ray_version"`
	RayCommit  string `json:"ray_commit"`
}

// Version asks the cluster for its Jobs API and Ray versions; it is the
// reachability probe.
func (c *Client) Version(ctx context.Context) (Version, error) {
	var v Version
	return v, c.do(ctx, http.MethodGet, "/api/version", nil, &v)
}

// Submit sends a job (POST /api/jobs/, trailing slash kept as Ray's
// documentation asks) and returns the submission id Ray recorded.
func (c *Client) Submit(ctx context.Context, req SubmitRequest) (string, error) {
	var out struct {
		JobID        string `json:"job_id"`
		SubmissionID string `json:"submission_id"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/jobs/", req, &out); err != nil {
		return "", err
	}
	if out.SubmissionID == "" {
		out.SubmissionID = out.JobID
	}
	return out.SubmissionID, nil
}

// List returns every job the cluster knows (GET /api/jobs/).
func (c *Client) List(ctx context.Context) ([]JobDetails, error) {
	var out []JobDetails
	return out, c.do(ctx, http.MethodGet, "/api/jobs/", nil, &out)
}

// Get returns one job by submission id (GET /api/jobs/{id}); a job Ray does
// not know is an *Error with status 404 (IsNotFound).
func (c *Client) Get(ctx context.Context, id string) (JobDetails, error) {
	var out JobDetails
	return out, c.do(ctx, http.MethodGet, "/api/jobs/"+url.PathEscape(id), nil, &out)
}

// Logs returns the whole output Ray kept for job id (GET /api/jobs/{id}/logs).
func (c *Client) Logs(ctx context.Context, id string) (string, error) {
	var out struct {
		Logs string `json:"logs"`
	}
	return out.Logs, c.do(ctx, http.MethodGet, "/api/jobs/"+url.PathEscape(id)+"/logs", nil, &out)
}

// Stop asks Ray to stop job id (POST /api/jobs/{id}/stop). It reports false
// when the job had already ended.
func (c *Client) Stop(ctx context.Context, id string) (bool, error) {
	var out struct {
		Stopped bool `json:"stopped"`
	}
	return out.Stopped, c.do(ctx, http.MethodPost, "/api/jobs/"+url.PathEscape(id)+"/stop", nil, &out)
}

// Delete forgets a finished job id and its logs on the cluster
// (DELETE /api/jobs/{id}); Ray refuses to delete a job that has not ended.
func (c *Client) Delete(ctx context.Context, id string) (bool, error) {
	var out struct {
		Deleted bool `json:"deleted"`
	}
	return out.Deleted, c.do(ctx, http.MethodDelete, "/api/jobs/"+url.PathEscape(id), nil, &out)
}
