package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
)

// A member books half of a shared GPU through the form; the calendar draws
// the shared GPU as one row ("shared 4 ways") with "bo · 0.5 of a GPU" on
// it, and never offers its slots as GPUs to pick. A share booked by
// another member from now on is kept by the scheduling pass on two slots
// of one GPU, which the cluster page draws as booked by her. Served and
// in Chromium, with screenshots.
func TestCalendarSharedSlotBooking(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	node, slots := testdb.SharedNode(t, s.DB, 2, 4)
	bo := s.Login(t, "bo@example.com")
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	if st, body, _ := postForm(t, s, bo, "/bookings", url.Values{"gpu_share": {"0.5"}, "shared_gpu": {fmt.Sprint(slots[0])},
		"starts_at": {day.Add(9 * time.Hour).Format("2006-01-02T15:04")}, "ends_at": {day.Add(17 * time.Hour).Format("2006-01-02T15:04")}}); st != 303 {
		t.Fatalf("bo books half of %s:0: %d %s", node.Name, st, body)
	}
	page := s.URL + "/bookings?view=day&date=" + day.Format("2006-01-02")
	html := getPage(t, bo, page)
	if !strings.Contains(html, "bo · 0.5 of a GPU") || strings.Count(html, `data-row="shared-`) != 2 {
		t.Fatalf("the calendar does not draw the share on a shared GPU's row:\n%s", html)
	}
	if strings.Contains(html, `name="gpu_ids"`) || !strings.Contains(html, `name="gpu_share"`) {
		t.Errorf("the form offers slots as GPUs, or no share:\n%s", html)
	}

	ana, _ := s.UserToken(t, "member")
	now := time.Now().UTC()
	if st, body := s.Do(t, "POST", "/api/v1/bookings", ana, fmt.Sprintf(`{"gpu_share":0.5,"gpu_ids":["%s:1"],"starts_at":%q,"ends_at":%q}`,
		node.Name, now.Format(time.RFC3339), now.Add(2*time.Hour).Format(time.RFC3339))); st != 201 {
		t.Fatalf("half of %s:1 from now: %d %s", node.Name, st, body)
	}
	if _, err := jobs.RunPass(context.Background(), *s.Deps, 0, "test"); err != nil {
		t.Fatal(err)
	}

	tab := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(tab,
		chromedp.Navigate(page),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "bo@example.com"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=nav-zone]`),
		chromedp.Navigate(page),
		chromedp.WaitVisible(`[data-testid=nav-zone]`),
	); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	poll(t, tab, "the share drawn on the shared GPU's row", `document.body.innerText.includes('bo · 0.5 of a GPU') &&
		document.body.innerText.includes('shared 4 ways')`, 20*time.Second)
	browsertest.Screenshot(t, tab, "calendar-shared-slot-booking")

	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(`[data-testid=shared-gpu]`)); err != nil {
		t.Fatal(err)
	}
	poll(t, tab, "two slots of one shared GPU booked", `
		document.querySelectorAll('[data-testid=shared-slot][data-state=booked]').length === 2 &&
		new Set(Array.from(document.querySelectorAll('[data-testid=shared-slot][data-state=booked]')).map(e => e.closest('[data-testid=shared-gpu]').dataset.gpuIndex)).size === 1`,
		20*time.Second)
	browsertest.Screenshot(t, tab, "cluster-shared-slot-booking")
}
