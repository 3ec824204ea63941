package lighthttp

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeepAlive proves that requests that may be resent share one
// connection, while the others each take a fresh one and ask the server to
// close it, and that an answer asking to close is not reused.
func TestKeepAlive(t *testing.T) {
	t.Parallel()
	type req struct {
		method, key string
		closeAnswer bool // the server answers Connection: close
	}
	tests := map[string]struct {
		reqs      []req
		wantConns int32
		wantClose []bool // the requests that said Connection: close
	}{
		"two GETs":                      {[]req{{method: "GET"}, {method: "GET"}}, 1, []bool{false, false}},
		"PUT then DELETE":               {[]req{{method: "PUT"}, {method: "DELETE"}}, 1, []bool{false, false}},
		"two POSTs":                     {[]req{{method: "POST"}, {method: "POST"}}, 2, []bool{true, true}},
		"two POSTs with a key":          {[]req{{method: "POST", key: "k1"}, {method: "POST", key: "k2"}}, 1, []bool{false, false}},
		"GET then POST":                 {[]req{{method: "GET"}, {method: "POST"}}, 2, []bool{false, true}},
		"answer with Connection: close": {[]req{{method: "GET", closeAnswer: true}, {method: "GET"}}, 2, []bool{false, false}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var gotClose []bool
			srv, conns := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				gotClose = append(gotClose, r.Close)
				mu.Unlock()
				if r.URL.Query().Has("close") {
					w.Header().Set("Connection", "close")
				}
				_, _ = io.WriteString(w, "ok")
			})
			c := &Client{}
			t.Cleanup(c.CloseIdle)
			for i, r := range tt.reqs {
				url := srv.URL + "/" + strconv.Itoa(i)
				if r.closeAnswer {
					url += "?close"
				}
				resp, err := c.Do(context.Background(), &Request{Method: r.method, URL: url, Header: map[string]string{"Idempotency-Key": r.key}})
				if err != nil {
					t.Fatal(err)
				}
				if string(resp.Body) != "ok" {
					t.Fatalf("answer %d: body %q", i, resp.Body)
				}
			}
			if got := conns.Load(); got != tt.wantConns {
				t.Errorf("%d connections, want %d", got, tt.wantConns)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.wantClose, gotClose); diff != "" {
				t.Errorf("Connection: close (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResendOnClosedIdle proves that a request that may be resent, sent on
// a kept connection the server has closed meanwhile, goes again on a fresh
// connection and gets its answer.
func TestResendOnClosedIdle(t *testing.T) {
	t.Parallel()
	tests := map[string]Request{
		"GET":               {Method: "GET"},
		"POST with its key": {Method: "POST", Header: map[string]string{"Idempotency-Key": "k"}, Body: []byte("{}")},
	}
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var handled atomic.Int32
			closed := make(chan struct{}, 2)
			// Each connection answers one request, as if to keep it, then
			// is closed.
			addr, conns := rawServer(t, func(c net.Conn, br *bufio.Reader) {
				if _, _, err := readRequest(br); err == nil {
					handled.Add(1)
					_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
				_ = c.Close()
				closed <- struct{}{}
			})
			c := &Client{}
			t.Cleanup(c.CloseIdle)
			req.URL = "http://" + addr + "/x"
			for i := range 2 {
				r := req
				resp, err := c.Do(context.Background(), &r)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if string(resp.Body) != "ok" {
					t.Fatalf("request %d: body %q", i, resp.Body)
				}
				<-closed // the kept connection is closed before the next request
			}
			if got := [2]int32{conns.Load(), handled.Load()}; got != [2]int32{2, 2} {
				t.Errorf("connections, requests handled = %v, want [2 2]", got)
			}
		})
	}
}

// TestNoResendOnFreshConnection proves that a request a server reads and
// then drops unanswered on a fresh connection is not sent again, whatever
// its method: the server may have acted on it.
func TestNoResendOnFreshConnection(t *testing.T) {
	t.Parallel()
	tests := map[string]Request{
		"POST":              {Method: "POST", Body: []byte(`{"gpus":1}`)},
		"POST with its key": {Method: "POST", Header: map[string]string{"Idempotency-Key": "k"}},
		"GET":               {Method: "GET"},
	}
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var handled atomic.Int32
			addr, conns := rawServer(t, func(c net.Conn, br *bufio.Reader) {
				if _, _, err := readRequest(br); err == nil {
					handled.Add(1)
				}
			})
			c := &Client{}
			req.URL = "http://" + addr + "/v1/jobs"
			if _, err := c.Do(context.Background(), &req); err == nil {
				t.Fatal("no error for a request left unanswered")
			}
			if got := [2]int32{conns.Load(), handled.Load()}; got != [2]int32{1, 1} {
				t.Errorf("connections, requests handled = %v, want [1 1]", got)
			}
		})
	}
}

// TestConcurrentUse proves that one Client serves many goroutines at once
// (run with -race).
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	srv, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	})
	c := &Client{}
	t.Cleanup(c.CloseIdle)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5 {
				path := "/" + strconv.Itoa(g) + "/" + strconv.Itoa(i)
				resp, err := get(t, c, srv.URL+path)
				if err != nil {
					t.Error(err)
					return
				}
				if string(resp.Body) != path {
					t.Errorf("GET %s: body %q", path, resp.Body)
				}
			}
		})
	}
	wg.Wait()
}
