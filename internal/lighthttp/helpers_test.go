package lighthttp

import (
	"bufio"
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// rawServer listens on a loopback port and runs serve on each connection
// it accepts, in its own goroutine; the connection is closed when serve
// returns. It returns the server's address and the count of connections
// accepted so far. The listener is closed and the goroutines awaited when
// the test ends.
func rawServer(t *testing.T, serve func(c net.Conn, br *bufio.Reader)) (addr string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns = new(atomic.Int32)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			wg.Go(func() {
				defer c.Close()
				serve(c, bufio.NewReader(c))
			})
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	return ln.Addr().String(), conns
}

// readHead reads a request's or a CONNECT's head up to its empty line and
// returns its lines, the first being the request line.
func readHead(br *bufio.Reader) ([]string, error) {
	var lines []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return lines, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return lines, nil
		}
		lines = append(lines, line)
	}
}

// readRequest reads a request's head and its body, framed by its
// Content-Length, and returns the head's lines and the body.
func readRequest(br *bufio.Reader) ([]string, []byte, error) {
	head, err := readHead(br)
	if err != nil {
		return head, nil, err
	}
	n := 0
	for _, l := range head[1:] {
		if name, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(name, "Content-Length") {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return head, nil, err
			}
		}
	}
	body := make([]byte, n)
	_, err = io.ReadFull(br, body)
	return head, body, err
}

// countingServer starts an httptest server running h, over TLS when
// useTLS, that counts the TCP connections it accepts and logs no errors
// (a refused handshake is expected in some tests).
func countingServer(t *testing.T, useTLS bool, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	n := new(atomic.Int32)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if useTLS {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, n
}

// get sends a GET for url with a fresh background context.
func get(t *testing.T, c *Client, url string) (*Response, error) {
	t.Helper()
	return c.Do(context.Background(), &Request{Method: "GET", URL: url})
}
