package web_test

import (
	"context"
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

// A node whose GPUs 0 and 1 (of four) are shared four ways is drawn as two
// whole GPU tiles and two shared GPUs of four slots; a half share running
// shows on two slots of one GPU as allocated, with its holder, and the
// totals count slots apart from GPUs; the page fits a phone.
func TestClusterPageDrawsSharedGPUs(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	spec, err := gpu.ParseFakeSpec("1x4:H100-80GB")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := node.ParseSharedGPUs("0-1:4", 4)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := s.NodeToken(t, "shared-a")
	a := &node.Agent{Client: apiclient.New(s.URL, tok), GPUs: gpu.NewFake("shared-a", spec), Hostname: "shared-a", Logger: s.Logger,
		Interval: time.Second, StateDir: t.TempDir(), Shared: shared, RunAsSelf: true}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); _ = a.StopJobs(5 * time.Second); <-done })
	waitFor(t, "10 devices up", func() bool { return upGPUs(t, s) == 10 })

	user, _ := s.UserToken(t, models.RoleMember)
	if status, body := s.Do(t, "POST", "/api/v1/queue/submit", user,
		`{"command":"sleep 60","gpu_share":0.5,"executor":"node","workdir":"/","name":"notebook"}`); status != 201 {
		t.Fatalf("submit a half share: %d %s", status, body)
	}

	tab := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(tab,
		chromedp.Navigate(s.URL+"/"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "ana@example.com"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=shared-gpu]`),
	); err != nil {
		t.Fatalf("sign in and open the cluster page: %v", err)
	}
	poll(t, tab, "two shared GPUs of four slots and two whole GPUs", `
		document.querySelectorAll('[data-testid=shared-gpu]').length === 2 &&
		document.querySelectorAll('[data-testid=shared-gpu] [data-testid=shared-slot]').length === 8 &&
		document.querySelectorAll('[data-testid=gpu-tile]').length === 2 &&
		Array.from(document.querySelectorAll('[data-testid=shared-gpu] [data-field=shared]')).every(e => e.textContent.includes('shared 4 ways'))`,
		20*time.Second)
	poll(t, tab, "the half share drawn on two slots of one GPU", `
		document.querySelectorAll('[data-testid=shared-slot][data-state=allocated]').length === 2 &&
		new Set(Array.from(document.querySelectorAll('[data-testid=shared-slot][data-state=allocated]')).map(e => e.closest('[data-testid=shared-gpu]').dataset.gpuIndex)).size === 1 &&
		document.querySelector('[data-testid=shared-slot][data-state=allocated] [data-field=holder]').textContent.trim() !== '' &&
		document.querySelector('[data-testid=total-shares]').textContent.includes('6 of 8 shared slots') &&
		document.querySelector('[data-testid=allocated-shares]').textContent.includes('2 shared slots')`,
		20*time.Second)
	browsertest.Screenshot(t, tab, "cluster-shared-gpus")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=shared-gpu]`)); err != nil {
		t.Fatal(err)
	}
	poll(t, tab, "no sideways scroll at 390 px", `document.documentElement.scrollWidth <= window.innerWidth`, 10*time.Second)
	browsertest.Screenshot(t, tab, "cluster-shared-gpus-phone")
}
