package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// startFakeNodes runs real node agents with simulated GPUs against s.
func startFakeNodes(t *testing.T, s *testserver.Server, spec string) {
	t.Helper()
	fs, err := gpu.ParseFakeSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	fs.OutsideUse = true // telemetry that moves by itself: the page must follow it
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, fs.Nodes)
	for i := range fs.Nodes {
		name := fmt.Sprintf("sim-%d", i+1)
		tok, _ := s.NodeToken(t, name)
		a := &node.Agent{Client: apiclient.New(s.URL, tok), GPUs: gpu.NewFake(name, fs), Hostname: name, Logger: s.Logger, Interval: time.Second,
			StateDir: t.TempDir()}
		go func() { _ = a.Run(ctx); done <- struct{}{} }()
	}
	t.Cleanup(func() {
		cancel()
		for range fs.Nodes {
			<-done
		}
	})
}

const utilJS = `Array.from(document.querySelectorAll('[data-testid=gpu-tile] [data-field=util]')).map(e => e.textContent.trim()).join(',')`

// The overview page in a real browser: sign in through the dev form, see
// 16 GPU tiles, and watch them change through SSE without a reload.
func TestClusterPageIsLiveInBrowser(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	startFakeNodes(t, s, "2x8:H100-80GB")
	tab := browsertest.New(t, 90*time.Second)

	err := chromedp.Do(tab,
		chromedp.Navigate(s.URL+"/"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "ana@example.com"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=gpu-tile]`),
	)
	if err != nil {
		t.Fatalf("sign in and open the cluster page: %v", err)
	}
	// Both nodes register within a heartbeat or two; the page catches up live.
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](`document.querySelectorAll('[data-testid=gpu-tile]').length === 16`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		n, _ := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=gpu-tile]').length`))
		t.Fatalf("the page shows %d GPU tiles, want 16: %v", n, err)
	}
	before, err := chromedp.Run(tab, chromedp.Evaluate[string](`window.__sameDocument = true; `+utilJS))
	if err != nil {
		t.Fatal(err)
	}
	// The page holds an open event stream...
	if !eventually(10*time.Second, func() bool {
		_, body := s.Do(t, "GET", "/metrics", "", "")
		return strings.Contains(string(body), "gpusched_sse_clients 1")
	}) {
		t.Fatal("the page did not open an SSE stream (gpusched_sse_clients never reached 1)")
	}
	// ...and its tiles change without a reload (the marker survives).
	changed := fmt.Sprintf(`window.__sameDocument === true && (%s) !== %q`, utilJS, before)
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](changed, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("GPU tiles did not change live: %v", err)
	}
	if dir := os.Getenv("GPUSCHED_SCREENSHOT_DIR"); dir != "" {
		png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
		if err == nil {
			_ = os.WriteFile(filepath.Join(dir, "cluster.png"), png, 0o644)
		}
	}

	// The queue page renders in the browser too, with a waiting job explained.
	// Its owner may hold one GPU at a time, so a 2-GPU job must wait for quota.
	tok, owner := s.UserToken(t, models.RoleMember)
	if _, err := s.DB.Bun.NewUpdate().Model((*models.User)(nil)).Set("gpu_cap = 1").Where("id = ?", owner.ID).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st, body := s.Do(t, "POST", "/api/v1/queue/submit", tok, `{"gpu_count":2,"executor":"lease","name":"two-gpus"}`); st != 201 {
		t.Fatalf("submit: %d %s", st, body)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/queue"), chromedp.WaitVisible(`[data-testid=queue-live]`)); err != nil {
		t.Fatalf("queue page: %v", err)
	}
	// The scheduler's reason arrives live (SSE "queue"), well before the 15s poll.
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](`document.body.innerText.includes("two-gpus") &&
		(document.querySelector('[data-testid=pending-job] td.reason')?.innerText ?? "").includes("quota")`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("the queue page never showed the job with its reason: %v", err)
	}
	if dir := os.Getenv("GPUSCHED_SCREENSHOT_DIR"); dir != "" {
		if png, err := chromedp.Run(tab, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "queue.png"), png, 0o644)
		}
	}

	// The API agrees with the page.
	status, body := s.Do(t, "GET", "/api/v1/cluster/gpu-status", tok, "")
	if status != 200 || !contains(body, `"total_gpus":16`) {
		t.Fatalf("gpu-status: %d %s", status, body)
	}
}
