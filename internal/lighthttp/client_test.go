package lighthttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seen is what a test server saw of one request.
type seen struct {
	Method, RequestURI, Host string
	Header                   map[string][]string
	Body                     string
}

// TestRoundTrip proves that a request reaches the server with its method,
// path and query, Host, the given non-empty header fields, Content-Length
// and body, and that the answer's code, status, fields (looked up in any
// case) and body come back.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		method string
		path   string
		header map[string]string
		body   []byte
		want   seen // Host is filled in from the server
	}{
		"GET with query": {
			method: "GET", path: "/v1/jobs?state=running&limit=2",
			header: map[string]string{"Accept": "application/json", "X-Empty": ""},
			want: seen{Method: "GET", RequestURI: "/v1/jobs?state=running&limit=2", Header: map[string][]string{
				"Accept": {"application/json"},
			}},
		},
		"POST with body": {
			method: "POST", path: "/v1/jobs",
			header: map[string]string{"Content-Type": "application/json", "Authorization": "Bearer t"},
			body:   []byte(`{"gpus":2}`),
			want: seen{Method: "POST", RequestURI: "/v1/jobs", Body: `{"gpus":2}`, Header: map[string][]string{
				"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}, "Content-Length": {"10"},
			}},
		},
		"POST without body says Content-Length 0": {
			method: "POST", path: "/v1/holds/7/end",
			want: seen{Method: "POST", RequestURI: "/v1/holds/7/end", Header: map[string][]string{
				"Content-Length": {"0"},
			}},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := make(chan seen, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				h := r.Header.Clone()
				for _, k := range []string{"Connection", "Idempotency-Key"} {
					h.Del(k) // depend on whether the request may be resent
				}
				got <- seen{Method: r.Method, RequestURI: r.RequestURI, Host: r.Host, Header: h, Body: string(b)}
				w.Header().Set("X-Answer", "yes")
				w.WriteHeader(http.StatusCreated)
				_, _ = io.WriteString(w, "answer body")
			}))
			t.Cleanup(srv.Close)
			c := &Client{}
			t.Cleanup(c.CloseIdle)

			resp, err := c.Do(context.Background(), &Request{Method: tt.method, URL: srv.URL + tt.path, Header: tt.header, Body: tt.body})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Host = srv.Listener.Addr().String()
			if diff := cmp.Diff(want, <-got); diff != "" {
				t.Errorf("server saw (-want +got):\n%s", diff)
			}
			type answer struct {
				Code               int
				Status, Get, GetUp string
				Body               string
			}
			wantA := answer{Code: 201, Status: "201 Created", Get: "yes", GetUp: "yes", Body: "answer body"}
			gotA := answer{resp.StatusCode, resp.Status, resp.Get("x-answer"), resp.Get("X-ANSWER"), string(resp.Body)}
			if diff := cmp.Diff(wantA, gotA); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}
