package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
)

// The calendar in a real browser, both users signed in through a real OpenID
// Connect provider: ana books 2 GPUs for tomorrow through the
// form (htmx) and sees her booking appear in the grid (SSE); dora, in another
// browser context, asks for 7 of the 8 GPUs in the same window and is
// refused with a message naming ana's booking; ana's grid stays as it was.
func TestBookingsCalendarInBrowser(t *testing.T) {
	t.Parallel()
	s, ops := startSSO(t)
	startFakeNodes(t, s, "1x8:H100-80GB")
	tab := browsertest.New(t, 90*time.Second)
	browserSignIn(t, tab, s.URL, ops["oidc"], "oidc", "ana@example.com", "/bookings")
	poll(t, tab, "the node's GPUs in the form", `document.querySelectorAll('input[name=gpu_ids]').length === 8`, 20*time.Second)
	// The page must be reloaded once the node has registered, for the form's choices.
	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/bookings"), chromedp.WaitVisible(`[data-testid=book]`)); err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	from, until := day.Add(9*time.Hour).Format("2006-01-02T15:04"), day.Add(18*time.Hour).Format("2006-01-02T15:04")
	err := chromedp.Do(tab,
		chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`),
		chromedp.SetValue(`#bk-count`, "2"),
		chromedp.SetValue(`#bk-start`, from),
		chromedp.SetValue(`#bk-end`, until),
		chromedp.Click(`[data-testid=book]`),
		chromedp.WaitVisible(`[data-testid=booking-done]`),
	)
	if err != nil {
		t.Fatalf("ana books 2 GPUs: %v", err)
	}
	poll(t, tab, "ana's booking in the grid without a reload",
		`window.__sameDocument === true && Array.from(document.querySelectorAll('[data-testid=booking-link]')).some(b => b.innerText.includes('2 GPUs'))`, 10*time.Second)
	browsertest.Screenshot(t, tab, "bookings-ana")

	dora := otherUser(t, tab)
	browserSignIn(t, dora, s.URL, ops["corp"], "corp", "dora@example.com", "/bookings")
	err = chromedp.Do(dora,
		chromedp.WaitVisible(`[data-testid=book]`),
		chromedp.SetValue(`#bk-count`, "7"),
		chromedp.SetValue(`#bk-start`, from),
		chromedp.SetValue(`#bk-end`, until),
		chromedp.Click(`[data-testid=book]`),
		chromedp.WaitVisible(`[data-testid=booking-error]`),
	)
	if err != nil {
		t.Fatalf("dora books 7 GPUs: %v", err)
	}
	msg, err := chromedp.Run(dora, chromedp.Evaluate[string](`document.querySelector('[data-testid=booking-error]').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("ana@example.com's booking #")
	if !contains([]byte(msg), want) || !contains([]byte(msg), "2 GPUs") && !contains([]byte(msg), "2 H100") {
		t.Errorf("dora's refusal %q does not name ana's booking", msg)
	}
	browsertest.Screenshot(t, dora, "bookings-dora-refused")
	// One booking, drawn on each of the two GPU rows it takes.
	n, err := chromedp.Run(tab, chromedp.Evaluate[int](`new Set(Array.from(document.querySelectorAll('[data-testid=booking-link]')).map(b => b.dataset.bookingId)).size`))
	if err != nil || n != 1 {
		t.Fatalf("ana's grid shows %d bookings, want 1 (%v)", n, err)
	}

	// At phone width the page fits the screen and the grid scrolls sideways.
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=booking-link]`)); err != nil {
		t.Fatal(err)
	}
	fits, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth + 1 &&
		document.querySelector('.calendar-scroll').scrollWidth > document.querySelector('.calendar-scroll').clientWidth`))
	if err != nil || !fits {
		browsertest.Screenshot(t, tab, "bookings-phone-failed")
		t.Fatalf("at phone width the page is wider than the screen or the grid does not scroll (%v)", err)
	}
	browsertest.Screenshot(t, tab, "bookings-phone")
}
