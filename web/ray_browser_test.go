package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
)

// The overview in a real browser says whether Ray answers, and turns to
// "disconnected" live (SSE on the nodes topic) when it stops answering.
func TestRayStatusLiveInBrowser(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, nil)
	tab := browsertest.New(t, 90*time.Second)
	err := chromedp.Do(tab,
		chromedp.Navigate(e.s.URL+"/"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "ana@example.com"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=ray-status][data-connected=true]`),
	)
	if err != nil {
		t.Fatalf("sign in and see Ray connected: %v", err)
	}
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`window.__sameDocument = true`)); err != nil {
		t.Fatal(err)
	}
	e.fake.SetDown(true)
	if err := e.ex.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	down := `window.__sameDocument === true && !!document.querySelector('[data-testid=ray-status][data-connected=false]')
		&& document.querySelector('[data-testid=ray-status]').textContent.includes('Ray cluster disconnected')`
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](down, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		text, _ := chromedp.Run(tab, chromedp.Evaluate[string](`(document.querySelector('[data-testid=ray-status]')||{}).textContent`))
		t.Fatalf("the page did not turn to disconnected without a reload (it says %q): %v", text, err)
	}
}
