package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
)

// In a real browser, as an admin in Berlin: the history page lists the
// ended jobs with their GPUs as node:index and GPU-hours, filters with
// the plain form (no JavaScript needed), and pages; the accounting page
// shows every user with cost. Both fit a 390 px phone without sideways
// scrolling. Screenshots at both widths go to ScreenshotDir.
func TestHistoryAndAccountingInBrowser(t *testing.T) {
	t.Parallel()
	f := accountingFixture(t)
	f.s.Login(t, "boss@example.com") // signs up; then an admin reading in Berlin
	if _, err := f.s.DB.Bun.ExecContext(t.Context(), `UPDATE users SET role = 'admin', time_zone = 'Europe/Berlin' WHERE email = 'boss@example.com'`); err != nil {
		t.Fatal(err)
	}
	tab := browsertest.New(t, 120*time.Second)
	err := chromedp.Do(tab,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(f.s.URL+"/login"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "boss@example.com"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=nav-user]`),
		chromedp.Navigate(f.s.URL+"/history"),
		chromedp.WaitVisible(`[data-testid=history-jobs]`),
	)
	if err != nil {
		t.Fatalf("sign in and open the history: %v", err)
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(tab, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q)?.textContent.trim() ?? ""`, sel)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	fits := func(what string) {
		t.Helper()
		ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
		if err != nil || !ok {
			w, _ := chromedp.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			t.Errorf("%s scrolls sideways at this width: scrollWidth %d (%v)", what, w, err)
		}
	}
	if n := count(`[data-testid=history-job]`); n != 7 {
		t.Errorf("history rows: %d, want 7", n)
	}
	twice := fmt.Sprintf(`[data-testid=history-job][data-job-id="%d"]`, f.twice)
	if got := text(twice + ` [data-field=gpus]`); got != "sim-node-1:4,5" {
		t.Errorf("the job run twice shows GPUs %q", got)
	}
	if got := text(twice + ` [data-field=gpu-hours]`); got != "4.00" {
		t.Errorf("the job run twice shows %q GPU-hours", got)
	}
	if got := text(`nav[aria-label=Main] a[aria-current=page]`); got != "History" {
		t.Errorf("the nav marks %q", got)
	}
	browsertest.Screenshot(t, tab, "history-desktop")

	// Filter with the form: failed jobs only; then a page of 2 and the next.
	err = chromedp.Do(tab,
		chromedp.SetValue(`#history-state`, "failed"),
		chromedp.Click(`[data-testid=history-show]`),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The unfiltered page has a failed row too: wait for the filtered one.
	if !eventually(30*time.Second, func() bool {
		done, err := chromedp.Run(tab, chromedp.Evaluate[bool](`location.search.includes('state=failed') && document.readyState === 'complete'`))
		return err == nil && done
	}) {
		t.Fatal("the filter form never loaded the failed jobs' page")
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible(`[data-testid=history-jobs] [data-state=failed]`)); err != nil {
		t.Fatal(err)
	}
	if n, m := count(`[data-testid=history-job]`), count(`[data-testid=history-job][data-state=failed]`); n != 1 || m != 1 {
		t.Errorf("failed filter: %d rows, %d failed", n, m)
	}
	err = chromedp.Do(tab, chromedp.Navigate(f.s.URL+"/history?limit=2"), chromedp.WaitVisible(`[data-testid=history-older]`),
		chromedp.Click(`[data-testid=history-older]`), chromedp.WaitVisible(`[data-testid=history-newest]`))
	if err != nil {
		t.Fatal(err)
	}
	if n := count(`[data-testid=history-job]`); n != 2 {
		t.Errorf("second page: %d rows", n)
	}

	err = chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Navigate(f.s.URL+"/history"), chromedp.WaitVisible(`[data-testid=history-jobs]`))
	if err != nil {
		t.Fatal(err)
	}
	fits("the history page")
	browsertest.Screenshot(t, tab, "history-phone")

	err = chromedp.Do(tab, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(f.s.URL+"/accounting?by=user"),
		chromedp.WaitVisible(`[data-testid=accounting-rows]`))
	if err != nil {
		t.Fatal(err)
	}
	if n := count(`[data-testid=accounting-row]`); n < 2 {
		t.Errorf("accounting rows: %d", n)
	}
	if got := text(`[data-testid=accounting-total] [data-field=cost]`); got == "" || got[len(got)-3:] != "EUR" {
		t.Errorf("total cost %q", got)
	}
	fits("the accounting page at desktop width")
	browsertest.Screenshot(t, tab, "accounting-desktop")
	err = chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=accounting-rows]`))
	if err != nil {
		t.Fatal(err)
	}
	fits("the accounting page")
	browsertest.Screenshot(t, tab, "accounting-phone")

	// The rates accounting prices with, on the policy form, at both widths.
	for _, w := range []struct {
		name          string
		width, height int64
	}{{"policies-desktop", 1280, 900}, {"policies-phone", 390, 844}} {
		err = chromedp.Do(tab, chromedp.EmulateViewport(w.width, w.height), chromedp.Navigate(f.s.URL+"/admin/policies"),
			chromedp.WaitVisible(`#p-cost_rates`))
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if got, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[name=cost_rates]').value + '|' + document.querySelector('[name=currency]').value`)); err != nil || got != "H100 = 2.5|EUR" {
			t.Errorf("%s: cost fields %q (%v)", w.name, got, err)
		}
		fits("the policy page at " + w.name)
		browsertest.Screenshot(t, tab, w.name)
	}
}
