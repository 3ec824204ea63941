package lighthttp

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"time"
)

// conn is one connection to a server or through a proxy.
type conn struct {
	nc     net.Conn
	br     *bufio.Reader
	reused bool
}

// longAgo is a deadline in the past: it unblocks a read or write at once.
var longAgo = time.Unix(1, 0)

// dial connects to u's host, or to proxy and through it: an http URL is
// then asked of the proxy itself, an https one through a CONNECT tunnel.
func dial(ctx context.Context, u, proxy *url.URL, cfg *tls.Config, deadline time.Time) (*conn, error) {
	d := net.Dialer{Deadline: deadline}
	target := hostPort(u)
	addr := target
	if proxy != nil {
		addr = hostPort(proxy)
	}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	cn := &conn{nc: nc, br: bufio.NewReaderSize(nc, 8<<10)}
	ok := false
	defer func() {
		if !ok {
			_ = nc.Close()
		}
	}()
	if proxy != nil && proxy.Scheme == "https" {
		if cn.nc, err = handshake(ctx, cn.nc, proxy.Hostname(), cfg, deadline); err != nil {
			return nil, fmt.Errorf("proxy %s: %w", proxy.Redacted(), err)
		}
		cn.br.Reset(cn.nc)
	}
	if u.Scheme == "https" {
		if proxy != nil {
			if err := tunnel(ctx, cn, target, proxy, deadline); err != nil {
				return nil, err
			}
		}
		if cn.nc, err = handshake(ctx, cn.nc, u.Hostname(), cfg, deadline); err != nil {
			return nil, err
		}
		cn.br.Reset(cn.nc)
	}
	ok = true
	return cn, nil
}

// hostPort is u's host with its port, the scheme's default when absent.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// handshake starts TLS with server name over nc.
func handshake(ctx context.Context, nc net.Conn, name string, cfg *tls.Config, deadline time.Time) (net.Conn, error) {
	if cfg == nil {
		cfg = &tls.Config{}
	} else {
		cfg = cfg.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = name
	}
	if len(cfg.NextProtos) == 0 {
		cfg.NextProtos = []string{"http/1.1"}
	}
	tc := tls.Client(nc, cfg)
	_ = tc.SetDeadline(deadline)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, fmt.Errorf("TLS handshake with %s: %w", name, err)
	}
	return tc, nil
}

// tunnel asks the proxy on cn to CONNECT to target.
func tunnel(ctx context.Context, cn *conn, target string, proxy *url.URL, deadline time.Time) error {
	_ = cn.nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = cn.nc.SetDeadline(longAgo) })
	defer stop()
	msg := "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n"
	if auth := proxyAuth(proxy); auth != "" {
		msg += "Proxy-Authorization: " + auth + "\r\n"
	}
	if _, err := io.WriteString(cn.nc, msg+"\r\n"); err != nil {
		return fmt.Errorf("proxy %s: %w", proxy.Redacted(), err)
	}
	resp, _, err := readResponse(cn.br, "CONNECT", 1<<20)
	if err != nil {
		return fmt.Errorf("proxy %s: %w", proxy.Redacted(), err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("proxy %s refused CONNECT %s: %s", proxy.Redacted(), target, resp.Status)
	}
	return nil
}

// proxyAuth is the Proxy-Authorization value for a proxy URL with a user.
func proxyAuth(proxy *url.URL) string {
	if proxy == nil || proxy.User == nil {
		return ""
	}
	pw, _ := proxy.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(proxy.User.Username()+":"+pw))
}

// exchange sends req on cn and reads the answer, keeping cn for reuse when
// the request may be resent and both sides allow it. sent reports whether
// the server may have seen the request: false when a reused connection
// failed before any answer, so the request can go again on a fresh one.
func (c *Client) exchange(ctx context.Context, cn *conn, u, proxy *url.URL, req *Request, deadline time.Time, key string, keep bool) (resp *Response, sent bool, err error) {
	defer func() {
		if err != nil {
			_ = cn.nc.Close()
			if ctx.Err() != nil {
				err = ctx.Err()
			} else if errors.Is(err, os.ErrDeadlineExceeded) && c.Timeout > 0 {
				err = fmt.Errorf("no answer within %s: %w", c.Timeout, err)
			}
		}
	}()
	_ = cn.nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = cn.nc.SetDeadline(longAgo) })
	defer stop()
	target := u.RequestURI()
	if proxy != nil && u.Scheme == "http" {
		target = u.Scheme + "://" + u.Host + u.RequestURI()
	}
	msg := appendRequest(nil, req, target, u.Host, proxy, u.Scheme == "http", keep)
	if _, err := cn.nc.Write(msg); err != nil {
		return nil, !cn.reused, err
	}
	if cn.reused {
		if _, err := cn.br.Peek(1); err != nil {
			return nil, !closedEarly(err), err
		}
	}
	resp, reusable, err := readResponse(cn.br, req.Method, c.maxBody())
	if err != nil {
		return nil, true, err
	}
	// stop() is false when ctx was cancelled meanwhile: the AfterFunc may
	// still set a past deadline on cn, so it must not be kept.
	if keep && reusable && cn.br.Buffered() == 0 && stop() {
		_ = cn.nc.SetDeadline(time.Time{})
		cn.reused = true
		c.putIdle(key, cn)
	} else {
		_ = cn.nc.Close()
	}
	return resp, true, nil
}

// closedEarly reports whether err is a connection the server had closed:
// nothing of the request can have been handled.
func closedEarly(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (c *Client) maxBody() int64 {
	if c.MaxBody > 0 {
		return c.MaxBody
	}
	return DefaultMaxBody
}
