package lighthttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// blockingServer starts a server whose handler calls onRequest, then
// blocks until the test ends.
func blockingServer(t *testing.T, onRequest func()) string {
	release := make(chan struct{})
	srv, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		onRequest()
		<-release
	})
	t.Cleanup(func() { close(release) }) // runs before the server's Close
	return srv.URL
}

// TestTimeout proves that Client.Timeout ends an exchange the server does
// not answer, with an error that says so.
func TestTimeout(t *testing.T) {
	t.Parallel()
	url := blockingServer(t, func() {})
	_, err := get(t, &Client{Timeout: 50 * time.Millisecond}, url)
	if err == nil || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Fatalf("error %v, want no answer within 50ms", err)
	}
}

// TestContextCanceled proves that cancelling the context ends an exchange
// waiting for its answer, with an error that wraps context.Canceled.
func TestContextCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := blockingServer(t, cancel)
	_, err := (&Client{}).Do(ctx, &Request{Method: "GET", URL: url})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestMaxBody proves that an answer's body over Client.MaxBody is an
// error, however it is framed, and one at the cap is not.
func TestMaxBody(t *testing.T) {
	t.Parallel()
	tests := map[string]func(body string) string{
		"length": func(b string) string {
			return "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(b)) + "\r\n\r\n" + b
		},
		"chunked": func(b string) string {
			a := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			for _, c := range b {
				a += "1\r\n" + string(c) + "\r\n"
			}
			return a + "0\r\n\r\n"
		},
		"until close": func(b string) string { return "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b },
	}
	for name, answer := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			addr, _ := rawServer(t, func(c net.Conn, br *bufio.Reader) {
				if head, _, err := readRequest(br); err == nil {
					_, _ = io.WriteString(c, answer(strings.Fields(head[0])[1][1:]))
				}
			})
			if resp, err := get(t, &Client{MaxBody: 4}, "http://"+addr+"/1234"); err != nil || string(resp.Body) != "1234" {
				t.Fatalf("at the cap: %v", err)
			}
			if _, err := get(t, &Client{MaxBody: 4}, "http://"+addr+"/12345"); !errors.Is(err, errTooLarge) {
				t.Fatalf("error %v, want %v", err, errTooLarge)
			}
		})
	}
}

// TestRefusedRequests proves that a request that cannot be sent as given
// is refused before any connection is made.
func TestRefusedRequests(t *testing.T) {
	t.Parallel()
	srv, conns := countingServer(t, false, func(http.ResponseWriter, *http.Request) {})
	tests := map[string]struct {
		req     Request
		wantMsg string
	}{
		"LF in a value":     {Request{Method: "GET", URL: srv.URL, Header: map[string]string{"X-A": "a\nInjected: yes"}}, "invalid value of header X-A"},
		"CR in a value":     {Request{Method: "GET", URL: srv.URL, Header: map[string]string{"X-A": "a\rb"}}, "invalid value of header X-A"},
		"space in a name":   {Request{Method: "GET", URL: srv.URL, Header: map[string]string{"X A": "1"}}, `invalid header name "X A"`},
		"space in a method": {Request{Method: "GE T", URL: srv.URL}, `invalid method "GE T"`},
		"no method":         {Request{URL: srv.URL}, `invalid method ""`},
		"ftp scheme":        {Request{Method: "GET", URL: "ftp://" + srv.Listener.Addr().String() + "/f"}, `unsupported scheme "ftp"`},
		"no host":           {Request{Method: "GET", URL: "http:///v1/jobs"}, "no host in URL"},
		"relative URL":      {Request{Method: "GET", URL: "/v1/jobs"}, "unsupported scheme"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := (&Client{}).Do(context.Background(), &tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("error %v, want one holding %q", err, tt.wantMsg)
			}
		})
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("%d connections made, want none", n)
	}
}

// TestErrorNamesRequest proves that an error names the request's method
// and URL, with the URL's password hidden, even when the URL is invalid.
func TestErrorNamesRequest(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close() // nothing listens there now: the connection is refused
	tests := map[string]struct {
		url, wantMsg string
	}{
		"refused": {
			url:     "http://root:hunter2@" + closed + "/v1/jobs",
			wantMsg: `DELETE "http://root:xxxxx@` + closed + `/v1/jobs": dial tcp ` + closed + ":",
		},
		"invalid port":   {url: "http://root:hunter2@localhost:http/", wantMsg: `DELETE "http://root:xxxxx@localhost:http/": `},
		"invalid escape": {url: "http://root:hunter2@localhost/%zz", wantMsg: `DELETE "http://root:xxxxx@localhost/%zz": `},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := (&Client{}).Do(context.Background(), &Request{Method: "DELETE", URL: tt.url})
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, tt.wantMsg) || strings.Contains(msg, "hunter2") {
				t.Errorf("error %q, want it to start with %q and hide the password", msg, tt.wantMsg)
			}
		})
	}
}
