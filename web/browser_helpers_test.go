package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/browsertest"
)

// devSignIn signs email in through the dev sign-in form of a tab that is
// signed out (a fresh browser context), and opens page.
func devSignIn(t *testing.T, tab context.Context, base, email, page string) {
	t.Helper()
	err := chromedp.Do(tab,
		chromedp.Navigate(base+"/login?next="+page),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, email),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`.nav-name`),
		chromedp.Navigate(base+page),
	)
	if err != nil {
		t.Fatalf("sign in as %s and open %s: %v", email, page, err)
	}
}

// poll waits until the JavaScript expression js is true in tab.
func poll(t *testing.T, tab context.Context, what, js string, timeout time.Duration) {
	t.Helper()
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(timeout))); err != nil {
		browsertest.Screenshot(t, tab, "failed-"+strings.ReplaceAll(t.Name(), "/", "_"))
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// otherUser opens a tab in a new browser context of tab's browser: its own
// cookies, so another user can sign in beside the first.
func otherUser(t *testing.T, tab context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(tab, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	return ctx
}
