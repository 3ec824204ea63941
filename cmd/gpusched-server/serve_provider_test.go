package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/oidctest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
)

// TestServeHelperProcess is not a test: it runs `gpusched serve` in the
// child process TestServeWithAHangingProvider starts.
func TestServeHelperProcess(t *testing.T) {
	if os.Getenv("GPUSCHED_TEST_SERVE_HELPER") != "1" {
		t.Skip("helper process only")
	}
	os.Args = []string{"gpusched", "serve"}
	main()
	os.Exit(0)
}

// A sign-in provider that accepts connections and never answers cannot
// stall the server: the real binary's serve answers /healthz within 5 s,
// names the provider on /readyz and the sign-in page, and stops on SIGTERM
// within its shutdown timeout.
func TestServeWithAHangingProvider(t *testing.T) {
	hanging := oidctest.Hanging(t)
	dbURL := testdb.URL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeHelperProcess$")
	cmd.Env = append(os.Environ(), "GPUSCHED_TEST_SERVE_HELPER=1", "DATABASE_URL="+dbURL, "GPUSCHED_LISTEN="+addr,
		"GPUSCHED_SESSION_KEY="+strings.Repeat("k", 32), "GPUSCHED_SHUTDOWN_TIMEOUT=5s",
		"GPUSCHED_OIDC_ISSUER="+hanging, "GPUSCHED_OIDC_CLIENT_ID=gpusched", "GPUSCHED_OIDC_CLIENT_SECRET=secret",
		"GPUSCHED_OIDC_ALLOW_INSECURE_ISSUER=true", "GPUSCHED_OIDC_LABEL=Hanging SSO")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	base := "http://" + addr
	c := &http.Client{Timeout: time.Second}
	var healthErr error
	if !eventually(5*time.Second-time.Since(start), func() bool {
		resp, err := c.Get(base + "/healthz")
		if healthErr = err; err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}) {
		t.Fatalf("no healthy /healthz within 5 s of starting serve: %v\n%s", healthErr, out.String())
	}
	t.Logf("healthy %s after start", time.Since(start).Round(time.Millisecond))

	// The provider is named once it has kept quiet for a moment.
	var readyCode int
	var readyBody []byte
	if !eventually(5*time.Second, func() bool {
		var ready struct {
			Status string `json:"status"`
			Checks map[string]struct {
				OK     bool   `json:"ok"`
				Detail string `json:"detail"`
			} `json:"checks"`
		}
		resp, err := c.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		readyCode = resp.StatusCode
		readyBody, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := json.Unmarshal(readyBody, &ready); err != nil {
			t.Fatalf("readyz: %v %s", err, readyBody)
		}
		return resp.StatusCode == 200 && ready.Status == "ready" && strings.Contains(ready.Checks["signin"].Detail, "oidc")
	}) {
		t.Fatalf("readyz does not name the hanging provider: %d %s", readyCode, readyBody)
	}
	resp, err := c.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `data-testid="provider-unavailable"`) || !strings.Contains(string(b), "Hanging SSO is not reachable") {
		t.Errorf("the sign-in page does not say the provider is unavailable: %.500s", b)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stop := time.Now()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM\n%s", err, out.String())
		}
		t.Logf("stopped %s after SIGTERM", time.Since(stop).Round(time.Millisecond))
	case <-time.After(8 * time.Second):
		t.Fatalf("serve did not stop within 8 s of SIGTERM (shutdown timeout 5 s)\n%s", out.String())
	}
}
