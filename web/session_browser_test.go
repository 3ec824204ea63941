package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// In a real browser: sign in through the OpenID Connect provider, see the
// session on the settings page, sign out; then the cookie copied before
// sign-out is refused, both put back into the browser and sent by another
// client.
func TestSignOutKillsCopiedCookieInBrowser(t *testing.T) {
	t.Parallel()
	s, ops := startSSO(t)
	tab := browsertest.New(t, 90*time.Second)
	if err := ops["oidc"].BrowserSignIn(tab, s.URL+"/login?next=/settings", "oidc", "ana@example.com", `[data-testid=this-device]`); err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, tab, "settings-sessions")
	var copied *network.Cookie
	res, err := chromedp.Call(tab, network.GetCookies, network.GetCookiesParams{URLs: []string{s.URL}})
	for _, c := range res.Cookies {
		if c.Name == web.SessionCookie {
			copied = c
		}
	}
	if err != nil || copied == nil {
		t.Fatalf("read the session cookie: %v", err)
	}

	if err := chromedp.Do(tab,
		chromedp.Click(`form[action="/auth/logout"] button`),
		chromedp.WaitVisible(`[data-testid=login]`),
	); err != nil {
		t.Fatalf("sign out: %v", err)
	}

	// Put the old cookie back into the browser: still signed out.
	httpOnly := true
	if _, err := chromedp.Call(tab, network.SetCookie, network.SetCookieParams{Name: copied.Name, Value: copied.Value, URL: s.URL, HTTPOnly: &httpOnly}); err != nil {
		t.Fatalf("put the old cookie back: %v", err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/queue"), chromedp.WaitVisible(`[data-testid=login]`)); err != nil {
		t.Fatalf("open /queue with the old cookie: %v", err)
	}
	path, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.pathname`))
	if err != nil || path != "/login" {
		t.Fatalf("the old cookie in the browser after sign-out: at %q: %v", path, err)
	}
	browsertest.Screenshot(t, tab, "old-cookie-refused")

	// And from another machine.
	req, _ := http.NewRequest("GET", s.URL+"/queue", nil)
	req.AddCookie(&http.Cookie{Name: copied.Name, Value: copied.Value})
	resp, err := noRedirect(s.Client()).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("the copied cookie from another client: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
}
