package apiclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient/nethttp"
)

// seen is what the test server saw of a request.
type seen struct {
	Method, Path, Accept, ContentType, Authorization, UserAgent, IdempotencyKey, Trace, Body string
}

// transports are the two ways a Client sends: the CLI's default and the
// agents' net/http.
var transports = map[string]func(*apiclient.Client){
	"lighthttp": func(*apiclient.Client) {},
	"net/http":  func(c *apiclient.Client) { c.Transport = nethttp.New(&http.Client{}) },
}

// Both transports send the same request (token, agent, JSON, extra headers
// with empty ones left out) and turn answers into the same results: a
// decoded 2xx, an *Error with the server's sentence and code, the status's
// text when the body is empty.
func TestClientDo(t *testing.T) {
	t.Parallel()
	for name, setup := range transports {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := make(chan seen, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got <- seen{r.Method, r.URL.RequestURI(), r.Header.Get("Accept"), r.Header.Get("Content-Type"), r.Header.Get("Authorization"),
					r.Header.Get("User-Agent"), r.Header.Get("Idempotency-Key"), r.Header.Get("X-Trace"), string(b)}
				switch r.URL.Path {
				case "/ok":
					w.WriteHeader(http.StatusCreated)
					_, _ = w.Write([]byte(`{"id": 7}`))
				case "/refused":
					w.WriteHeader(http.StatusConflict)
					_, _ = w.Write([]byte(`{"error": "the job has ended", "code": "conflict"}`))
				case "/broken":
					w.WriteHeader(http.StatusInternalServerError)
				}
			}))
			t.Cleanup(srv.Close)
			c := apiclient.New(srv.URL+"/", "tok")
			c.UserAgent = "gpusched/test"
			setup(c)
			ctx := context.Background()

			var out struct {
				ID int `json:"id"`
			}
			err := c.DoWith(ctx, "POST", "/ok?x=1", map[string]int{"gpu_count": 2}, &out, map[string]string{"Idempotency-Key": "k1", "X-Trace": ""})
			if err != nil || out.ID != 7 {
				t.Fatalf("POST /ok: %v, id %d", err, out.ID)
			}
			want := seen{"POST", "/ok?x=1", "application/json", "application/json", "Bearer tok", "gpusched/test", "k1", "", `{"gpu_count":2}`}
			if diff := cmp.Diff(want, <-got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}

			err = c.Do(ctx, "DELETE", "/refused", nil, nil)
			var apiErr *api.Error
			if !errors.As(err, &apiErr) || apiErr.Status != 409 || apiErr.Message != "the job has ended" || apiErr.Code != "conflict" {
				t.Errorf("DELETE /refused: %#v", err)
			}
			if s := <-got; s.ContentType != "" || s.Body != "" {
				t.Errorf("DELETE without a body sent Content-Type %q, body %q", s.ContentType, s.Body)
			}

			err = c.Do(ctx, "GET", "/broken", nil, &out)
			if !api.IsStatus(err, 500) || !errors.As(err, &apiErr) || apiErr.Message != "Internal Server Error" {
				t.Errorf("GET /broken: %v", err)
			}
			<-got

			var notJSON json.RawMessage
			srvText := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("not json")) }))
			t.Cleanup(srvText.Close)
			c.BaseURL = srvText.URL
			if err := c.Do(ctx, "GET", "/", nil, &notJSON); err == nil {
				t.Error("a 200 that is not JSON decoded without error")
			}
		})
	}
}
