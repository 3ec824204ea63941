package oidctest

import (
	"context"
	"fmt"

	"github.com/chromedp/chromedp"
)

// BrowserSignIn signs email in through provider in a real browser tab: open
// loginURL (the relying party's sign-in page), click the provider's button
// (data-provider=provider), fill this provider's login form and submit it.
// It returns once the browser is back on the relying party at a page showing
// wantSelector.
func (p *Provider) BrowserSignIn(tab context.Context, loginURL, provider, email, wantSelector string) error {
	err := chromedp.Do(tab,
		chromedp.Navigate(loginURL),
		chromedp.WaitVisible(`[data-provider="`+provider+`"]`),
		chromedp.Click(`[data-provider="`+provider+`"]`),
		chromedp.WaitVisible(`#username`),
		chromedp.SetValue(`#username`, email),
		chromedp.SetValue(`#password`, Password),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(wantSelector),
	)
	if err != nil {
		return fmt.Errorf("oidctest: sign %s in through %s in the browser: %w", email, provider, err)
	}
	return nil
}
