package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/oidctest"
)

// browserSignIn signs email in, in tab, through the test's OpenID Connect
// provider op (named provider on the login page), then opens page.
func browserSignIn(t *testing.T, tab context.Context, base string, op *oidctest.Provider, provider, email, page string) {
	t.Helper()
	if err := op.BrowserSignIn(tab, base+"/login?next="+page, provider, email, `.nav-name`); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(base+page)); err != nil {
		t.Fatalf("open %s as %s: %v", page, email, err)
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
