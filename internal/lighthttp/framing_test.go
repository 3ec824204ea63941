package lighthttp

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnswerFraming proves that an answer's body is read whatever frames
// it: a Content-Length, chunks, the end of the connection, or nothing at
// all (204, an answer to HEAD), and that interim 1xx answers before the
// final one are skipped.
func TestAnswerFraming(t *testing.T) {
	t.Parallel()
	type answer struct {
		Code   int
		Status string
		Field  string // the X-Final field
		Body   string
	}
	tests := map[string]struct {
		method  string
		handler http.HandlerFunc // an httptest server's, or
		raw     string           // the bytes a raw server answers with
		want    answer
	}{
		"Content-Length": {
			method: "GET",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "5")
				_, _ = io.WriteString(w, "hello")
			},
			want: answer{Code: 200, Status: "200 OK", Body: "hello"},
		},
		"chunked": {
			method: "GET",
			handler: func(w http.ResponseWriter, r *http.Request) {
				for _, s := range []string{"one ", "two ", "three"} {
					_, _ = io.WriteString(w, s)
					w.(http.Flusher).Flush()
				}
			},
			want: answer{Code: 200, Status: "200 OK", Body: "one two three"},
		},
		"until close": {
			method: "GET",
			raw:    "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello",
			want:   answer{Code: 200, Status: "200 OK", Body: "hello"},
		},
		"HTTP/1.0 until close": {
			method: "GET",
			raw:    "HTTP/1.0 200 OK\r\n\r\nold times",
			want:   answer{Code: 200, Status: "200 OK", Body: "old times"},
		},
		"204": {
			method: "DELETE",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNoContent)
			},
			want: answer{Code: 204, Status: "204 No Content"},
		},
		"HEAD": {
			method: "HEAD",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "1000")
			},
			want: answer{Code: 200, Status: "200 OK"},
		},
		"103 before 200": {
			method: "GET",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Link", "</app.css>; rel=preload")
				w.WriteHeader(http.StatusEarlyHints)
				w.Header().Del("Link")
				w.Header().Set("X-Final", "yes")
				_, _ = io.WriteString(w, "final")
			},
			want: answer{Code: 200, Status: "200 OK", Field: "yes", Body: "final"},
		},
		"100 and 102 before 201": {
			method: "GET",
			raw: "HTTP/1.1 100 Continue\r\n\r\n" +
				"HTTP/1.1 102 Processing\r\nX-Final: no\r\n\r\n" +
				"HTTP/1.1 201 Created\r\nX-Final: yes\r\nContent-Length: 4\r\n\r\ndone",
			want: answer{Code: 201, Status: "201 Created", Field: "yes", Body: "done"},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var url string
			if tt.handler != nil {
				srv := httptest.NewServer(tt.handler)
				t.Cleanup(srv.Close)
				url = srv.URL
			} else {
				addr, _ := rawServer(t, func(c net.Conn, br *bufio.Reader) {
					if _, _, err := readRequest(br); err == nil {
						_, _ = io.WriteString(c, tt.raw)
					}
				})
				url = "http://" + addr
			}
			c := &Client{}
			t.Cleanup(c.CloseIdle)
			resp, err := c.Do(context.Background(), &Request{Method: tt.method, URL: url + "/x"})
			if err != nil {
				t.Fatal(err)
			}
			got := answer{resp.StatusCode, resp.Status, resp.Get("X-Final"), string(resp.Body)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadResponseReusable proves which answers leave their connection
// fit for another request: an HTTP/1.1 answer framed by length or chunks,
// not one that asks to close, ends with the connection, is HTTP/1.0 or
// switches protocols.
func TestReadResponseReusable(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		method, in string
		want       bool
	}{
		"length":            {"GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true},
		"chunked":           {"GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", true},
		"204":               {"DELETE", "HTTP/1.1 204 No Content\r\n\r\n", true},
		"HEAD":              {"HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", true},
		"Connection: close": {"GET", "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 2\r\n\r\nok", false},
		"until close":       {"GET", "HTTP/1.1 200 OK\r\n\r\nok", false},
		"HTTP/1.0":          {"GET", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", false},
		"101":               {"GET", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, reusable, err := readResponse(bufio.NewReader(strings.NewReader(tt.in)), tt.method, 100)
			if err != nil {
				t.Fatal(err)
			}
			if reusable != tt.want {
				t.Errorf("reusable = %v, want %v", reusable, tt.want)
			}
		})
	}
}
