// Package browsertest starts a real headless Chromium for page tests
// (chromedp). Chromium is required: install Debian's `chromium` package (the
// project's .ci/run does), or point GPUSCHED_CHROMIUM at a Chrome binary.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Find returns the path of a Chromium or Chrome binary.
func Find() (string, bool) {
	if p := os.Getenv("GPUSCHED_CHROMIUM"); p != "" {
		return p, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// New returns a browser tab context for t, closed when t ends. The whole
// test is bounded by timeout.
func New(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	path, ok := Find()
	if !ok {
		t.Fatal("no Chromium found: install it (apt-get install chromium) or set GPUSCHED_CHROMIUM; page tests need a real browser")
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(1280, 900),
	)
	tab, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
	})
	return tab
}
