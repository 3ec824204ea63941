package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestVersionPrintsBuildFacts(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	root := NewRoot(testBuild)
	root.SetOut(&buf)
	root.SetArgs([]string{"version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gpusched v9.9.9-test\n", "commit: abc123\n", "built: 2026-01-02T03:04:05Z\n", "go: go1.", "\nextra: fact\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("version output %q lacks %q", buf.String(), want)
		}
	}
}

func TestLocalURL(t *testing.T) {
	t.Parallel()
	for listen, want := range map[string]string{
		"":               "http://127.0.0.1:8080",
		"0.0.0.0:8080":   "http://127.0.0.1:8080",
		":9000":          "http://127.0.0.1:9000",
		"10.0.0.5:8080":  "http://10.0.0.5:8080",
		"[::]:8080":      "http://127.0.0.1:8080",
		"127.0.0.1:1234": "http://127.0.0.1:1234",
	} {
		if got := localURL(listen); got != want {
			t.Errorf("localURL(%q) = %q, want %q", listen, got, want)
		}
	}
}

func TestHealthcheck(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(int(status.Load())) }))
	defer srv.Close()
	run := func() error {
		root := NewRoot(testBuild)
		root.SetOut(&bytes.Buffer{})
		root.SetArgs([]string{"healthcheck", "--url", srv.URL + "/healthz"})
		return root.Execute()
	}
	if err := run(); err != nil {
		t.Errorf("healthy server: %v", err)
	}
	status.Store(http.StatusServiceUnavailable)
	if err := run(); err == nil {
		t.Error("a 503 passed the health check")
	}
}
