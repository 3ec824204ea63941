// Package lighthttp is the small HTTP/1.1 client of the gpusched command
// line: plain and TLS connections, proxies from the environment, answers by
// length, chunked or to the end, and one idle connection per host kept for
// the requests that may be sent again. It does not link net/http, whose
// start (package initialisation, and two goroutines per connection) is a
// measurable part of one short CLI call; the long-running node agent keeps
// net/http and its connection pool.
package lighthttp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DefaultMaxBody caps an answer's body when Client.MaxBody is 0.
const DefaultMaxBody = 32 << 20

// Client sends HTTP/1.1 requests. Its zero value is usable: no timeout but
// the context's, the system's certificate roots, no proxy.
type Client struct {
	// Timeout bounds one exchange, connecting included; 0: none.
	Timeout time.Duration
	// TLSConfig is cloned for https connections; nil: the system's roots.
	TLSConfig *tls.Config
	// Proxy returns the proxy for a request's URL, nil for none;
	// ProxyFromEnvironment reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY.
	Proxy func(*url.URL) (*url.URL, error)
	// MaxBody caps an answer's body in bytes; 0: DefaultMaxBody.
	MaxBody int64

	mu   sync.Mutex
	idle map[string]*conn
}

// Request is one HTTP request.
type Request struct {
	Method string
	URL    string
	// Header holds the fields to send besides Host and Content-Length;
	// empty values are not sent.
	Header map[string]string
	// Body is sent with its length; nil sends none (a POST, PUT or PATCH
	// still says Content-Length: 0).
	Body []byte
}

// Response is an answer, its body read in full.
type Response struct {
	StatusCode int
	// Status is the status line's code and reason, e.g. "200 OK".
	Status string
	// Header maps lower-case field names to their values.
	Header map[string][]string
	Body   []byte
}

// Get returns the first value of the field name (any case), or "".
func (r *Response) Get(name string) string {
	if v := r.Header[strings.ToLower(name)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Do sends req and reads its answer. Requests that may be sent twice (GET,
// HEAD, OPTIONS, PUT, DELETE, or any with an Idempotency-Key) reuse an idle
// connection and are sent once more on a fresh one when the reused one
// turns out closed; others always take a fresh connection, so a submission
// is never sent twice.
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	resp, err := c.do(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", req.Method, redact(req.URL), err)
	}
	return resp, nil
}

func (c *Client) do(ctx context.Context, req *Request) (*Response, error) {
	u, err := url.Parse(req.URL)
	if err != nil {
		// Its message repeats the URL, password included; Do names the
		// URL, redacted.
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("unsupported scheme %q (want http or https)", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("no host in URL")
	}
	if err := validRequest(req); err != nil {
		return nil, err
	}
	var proxy *url.URL
	if c.Proxy != nil {
		if proxy, err = c.Proxy(u); err != nil {
			return nil, fmt.Errorf("proxy: %w", err)
		}
	}
	var deadline time.Time
	if c.Timeout > 0 {
		deadline = time.Now().Add(c.Timeout)
	}
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	key := poolKey(u, proxy)
	retry := mayResend(req)
	if retry {
		if cn := c.takeIdle(key); cn != nil {
			resp, sent, err := c.exchange(ctx, cn, u, proxy, req, deadline, key, retry)
			if err == nil || sent || ctx.Err() != nil {
				return resp, err
			}
			// The idle connection was closed by the server: once more.
		}
	}
	cn, err := dial(ctx, u, proxy, c.TLSConfig, deadline)
	if err != nil {
		return nil, err
	}
	resp, _, err := c.exchange(ctx, cn, u, proxy, req, deadline, key, retry)
	return resp, err
}

// mayResend reports whether req may be sent twice: its method is
// idempotent, or it carries an idempotency key.
func mayResend(req *Request) bool {
	switch req.Method {
	case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE":
		return true
	}
	return req.Header["Idempotency-Key"] != ""
}

// takeIdle returns the idle connection kept for key, if any.
func (c *Client) takeIdle(key string) *conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	cn := c.idle[key]
	delete(c.idle, key)
	return cn
}

// putIdle keeps cn for the next request to key, closing the one it
// replaces.
func (c *Client) putIdle(key string, cn *conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idle == nil {
		c.idle = map[string]*conn{}
	}
	if old := c.idle[key]; old != nil {
		_ = old.nc.Close()
	}
	c.idle[key] = cn
}

// CloseIdle closes the connections kept for reuse.
func (c *Client) CloseIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, cn := range c.idle {
		_ = cn.nc.Close()
		delete(c.idle, k)
	}
}

// poolKey names the connections that can carry a request to u through proxy.
func poolKey(u *url.URL, proxy *url.URL) string {
	k := u.Scheme + "://" + u.Host
	if proxy != nil {
		k += " via " + proxy.String()
	}
	return k
}

// redact hides a URL's password in errors, an invalid URL's too.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return raw
	}
	user, _, hasPassword := strings.Cut(authority[:at], ":")
	if !hasPassword {
		return raw
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}
