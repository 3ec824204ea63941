package web_test

import (
	"context"
	"os"
	"path/filepath"
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

// A node with fake MIG (GPUs 0-1 of four as seven 1g.10gb slices each) is
// drawn as two whole GPU tiles and two MIG GPUs of seven slices; a lease
// granted on a 1g.10gb slice shows on one slice as allocated, with its
// holder, and the totals count slices apart from GPUs.
func TestClusterPageDrawsMIGSlices(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	spec, err := gpu.ParseFakeSpec("1x4:H100-80GB")
	if err != nil {
		t.Fatal(err)
	}
	if spec, err = spec.WithMIG("0-1:7x1g.10gb"); err != nil {
		t.Fatal(err)
	}
	tok, _ := s.NodeToken(t, "mig-a")
	a := &node.Agent{Client: apiclient.New(s.URL, tok), GPUs: gpu.NewFake("mig-a", spec), Hostname: "mig-a", Logger: s.Logger,
		Interval: time.Second, StateDir: t.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "16 devices up", func() bool { return upGPUs(t, s) == 16 })

	user, _ := s.UserToken(t, models.RoleMember)
	if status, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", user,
		`{"job_id":"notebook","gpu_count":1,"gpu_model":"1g.10gb","timeout_s":10}`); status != 200 {
		t.Fatalf("allocate a slice: %d %s", status, body)
	}

	tab := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(tab,
		chromedp.Navigate(s.URL+"/"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "ana@example.com"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=mig-gpu]`),
	); err != nil {
		t.Fatalf("sign in and open the cluster page: %v", err)
	}
	poll(t, tab, "two MIG GPUs of seven slices and two whole GPUs", `
		document.querySelectorAll('[data-testid=mig-gpu]').length === 2 &&
		document.querySelectorAll('[data-testid=mig-gpu] [data-testid=mig-slice][data-profile="1g.10gb"]').length === 14 &&
		document.querySelectorAll('[data-testid=gpu-tile]').length === 2 &&
		Array.from(document.querySelectorAll('[data-testid=mig-gpu] [data-field=mig]')).every(e => e.textContent.includes('7×1g.10gb'))`,
		20*time.Second)
	poll(t, tab, "the leased slice drawn as allocated", `
		document.querySelectorAll('[data-testid=mig-slice][data-state=allocated]').length === 1 &&
		document.querySelector('[data-testid=mig-slice][data-state=allocated] [data-field=holder]').textContent.trim() !== '' &&
		document.querySelector('[data-testid=total-slices]').textContent.includes('13 of 14 MIG slices') &&
		document.querySelector('[data-testid=allocated-slices]').textContent.includes('1 MIG slices')`,
		20*time.Second)
	browsertest.Screenshot(t, tab, "cluster-mig-slices")
	if _, err := os.Stat(filepath.Join(browsertest.ScreenshotDir(), "cluster-mig-slices.png")); err != nil {
		t.Logf("no screenshot: %v", err)
	}
}
