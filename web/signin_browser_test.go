package web_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
)

// In a real browser: an admin signs in through the OpenID Connect provider,
// lands on the overview, drains a node on the admin nodes page in a second
// tab, and the first tab's tiles change live (SSE, no reload). A member
// signing in through the other provider sees no Admin link.
func TestSignInAndDrainInBrowser(t *testing.T) {
	t.Parallel()
	s, ops := startSSO(t)
	startFakeNodes(t, s, "2x4:H100-80GB")
	overview := browsertest.New(t, 120*time.Second)
	if err := chromedp.Do(overview, chromedp.Navigate(s.URL+"/login"), chromedp.WaitVisible(`[data-provider=corp]`)); err != nil {
		t.Fatalf("login page: %v", err)
	}
	browsertest.Screenshot(t, overview, "signin-login")

	if err := ops["oidc"].BrowserSignIn(overview, s.URL+"/login", "oidc", "boss@example.com", `[data-testid=gpu-tile]`); err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, overview, "signin-overview")
	if _, err := chromedp.Run(overview, chromedp.Poll[bool](`document.querySelectorAll('[data-testid=node-card][data-node-status=up]').length === 2 &&
		document.querySelectorAll('[data-testid=gpu-tile]').length === 8`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the overview never showed 2 nodes up with 8 GPUs: %v", err)
	}
	name, err := chromedp.Run(overview, chromedp.Evaluate[string](`window.__sameDocument = true;
		document.querySelector('[data-testid=nav-user]').textContent + '|' + location.pathname + '|' + !!document.querySelector('a[href="/admin/users"]')`))
	if err != nil || name != "Boss|/|true" {
		t.Fatalf("signed in as %q (want Boss on / with an Admin link): %v", name, err)
	}

	// A second tab of the same browser: the admin nodes page.
	admin, cancel := chromedp.NewContext(overview)
	defer cancel()
	if err := chromedp.Do(admin,
		chromedp.Navigate(s.URL+"/admin/nodes"),
		chromedp.WaitVisible(`[data-node="sim-1"] [data-testid=drain]`),
	); err != nil {
		t.Fatalf("admin nodes page: %v", err)
	}
	browsertest.Screenshot(t, admin, "admin-nodes")
	if err := chromedp.Do(admin,
		chromedp.Click(`[data-node="sim-1"] [data-testid=drain]`),
		chromedp.WaitVisible(`[data-node="sim-1"] [data-testid=undrain]`),
	); err != nil {
		t.Fatalf("drain sim-1: %v", err)
	}
	browsertest.Screenshot(t, admin, "admin-nodes-drained")
	// The policy preview and the users page, for the record.
	if err := chromedp.Do(admin,
		chromedp.Navigate(s.URL+"/admin/policies"),
		chromedp.Click(`button[value=preview]`),
		chromedp.WaitVisible(`[data-testid=preview]`),
	); err != nil {
		t.Fatalf("policy preview: %v", err)
	}
	browsertest.Screenshot(t, admin, "admin-policies-preview")
	if err := chromedp.Do(admin, chromedp.Navigate(s.URL+"/admin/users"), chromedp.WaitVisible(`[data-email="boss@example.com"]`)); err != nil {
		t.Fatalf("users page: %v", err)
	}
	browsertest.Screenshot(t, admin, "admin-users")

	// The overview follows without a reload: sim-1 draining, its tiles unavailable.
	const drained = `window.__sameDocument === true && (() => {
		const card = Array.from(document.querySelectorAll('[data-testid=node-card]')).find(c => c.querySelector('h2').textContent.trim() === 'sim-1');
		return !!card && card.dataset.nodeStatus === 'draining' &&
			Array.from(card.querySelectorAll('[data-testid=gpu-tile]')).every(t => t.classList.contains('state-unavailable'));
	})()`
	if _, err := chromedp.Run(overview, chromedp.Poll[bool](drained, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		statuses, _ := chromedp.Run(overview, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid=node-card]')).map(c => c.dataset.nodeStatus).join(',')`))
		t.Fatalf("the overview did not show sim-1 drained live (node statuses %s): %v", statuses, err)
	}
	browsertest.Screenshot(t, overview, "overview-drained")

	// A member through the other provider: no Admin link, and /admin is refused.
	member := browsertest.New(t, 60*time.Second)
	if err := ops["corp"].BrowserSignIn(member, s.URL+"/login", "corp", "ana@example.com", `[data-testid=gpu-tile]`); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(member, chromedp.Evaluate[string](`document.querySelector('[data-testid=nav-user]').textContent + '|' + !!document.querySelector('a[href="/admin/users"]')`))
	if err != nil || got != "Ana|false" {
		t.Fatalf("member nav %q: %v", got, err)
	}
	if err := chromedp.Do(member, chromedp.Navigate(s.URL+"/admin/nodes"), chromedp.WaitVisible(`[data-testid=error-page][data-status="403"]`)); err != nil {
		t.Fatalf("a member opened the admin nodes page: %v", err)
	}
	// Phone width: the login page and the tokens page stay usable.
	if err := chromedp.Do(member, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.URL+"/settings/tokens"), chromedp.WaitVisible(`#token-name`)); err != nil {
		t.Fatal(err)
	}
	wide, err := chromedp.Run(member, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth + 1`))
	if err != nil || !wide {
		t.Fatalf("the tokens page overflows a phone's width: %v", err)
	}
	browsertest.Screenshot(t, member, "tokens-phone")
	// Create a token without leaving the page flow: shown once, with a copy button.
	if err := chromedp.Do(member,
		chromedp.SetValue(`#token-name`, "laptop"),
		chromedp.Click(`[data-testid=tokens-page] button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=token-value]`),
		chromedp.WaitVisible(`[data-copy="#new-token"]`),
	); err != nil {
		t.Fatalf("create a token: %v", err)
	}
	browsertest.Screenshot(t, member, "tokens-created-phone")
}
