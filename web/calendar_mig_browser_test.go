package web_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// A member books two MIG slices through the form's gpu type; the calendar
// draws the booking with its profile, "bo · 2 × 1g.10gb", on the node's
// slices, as served and in a real browser.
func TestCalendarMIGSliceBooking(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	testdb.MIGNode(t, s.DB, 1, 7)
	bo := s.Login(t, "bo@example.com")
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	if st, body, _ := postForm(t, s, bo, "/bookings", url.Values{"gpu_count": {"2"}, "gpu_model": {"1g.10gb"},
		"starts_at": {day.Add(9 * time.Hour).Format("2006-01-02T15:04")}, "ends_at": {day.Add(17 * time.Hour).Format("2006-01-02T15:04")}}); st != 303 {
		t.Fatalf("bo books 2 × 1g.10gb: %d %s", st, body)
	}
	page := s.URL + "/bookings?view=day&date=" + day.Format("2006-01-02")
	html := getPage(t, bo, page)
	if !strings.Contains(html, "bo · 2 × 1g.10gb") {
		t.Fatalf("the calendar does not draw the slice booking with its profile:\n%s", html)
	}
	if !strings.Contains(html, `<option value="1g.10gb"`) || strings.Contains(html, `name="gpu_ids"`) {
		t.Errorf("the form's GPU type does not offer the slices' profile, or offers slices as whole GPUs:\n%s", html)
	}

	tab := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(tab,
		chromedp.Navigate(page),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "bo@example.com"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=nav-zone]`),
	); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(page), chromedp.WaitVisible(`[data-testid=nav-zone]`)); err != nil {
		t.Fatal(err)
	}
	poll(t, tab, "the slice booking drawn with its profile", `document.body.innerText.includes('2 × 1g.10gb')`, 20*time.Second)
	browsertest.Screenshot(t, tab, "calendar-mig-slices")
}
