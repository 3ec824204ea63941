package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// devSignIn signs email in through the dev sign-in form in tab.
func devSignIn(t *testing.T, tab context.Context, s *testserver.Server, email string) {
	t.Helper()
	err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/login"), chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, email), chromedp.Click(`form[action="/auth/dev"] button[type=submit]`),
		chromedp.WaitVisible(`.nav-name`))
	if err != nil {
		t.Fatalf("dev sign-in of %s: %v", email, err)
	}
}

// text returns the inner text of the first element matching sel.
func text(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(tab, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q)||{innerText:''}).innerText`, sel)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The booking page in a real browser, without relying on JavaScript for
// its actions: extending into a colleague's booking is refused naming it;
// "I'm done" frees the GPUs and the queued job starts; a weekday series
// with one occurrence canceled; the admin's import preview and confirm;
// the page fits a phone.
func TestBookingEditsInBrowser(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	s.Login(t, "root@example.com") // the first sign-in is the admin
	s.Login(t, "ana@example.com")
	s.Login(t, "bo@example.com")
	ana, bo := calUserID(t, s, "ana@example.com"), calUserID(t, s, "bo@example.com")
	mine := calSeed(t, s, ana, 6, 9, 12)
	theirs := calSeed(t, s, bo, 4, 13, 17)
	tab := browsertest.New(t, 120*time.Second)
	devSignIn(t, tab, s, "ana@example.com")

	// Extend into bo's booking: refused, naming it.
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	err := chromedp.Do(tab, chromedp.Navigate(fmt.Sprintf("%s/bookings/%d", s.URL, mine)), chromedp.WaitVisible(`[data-testid=edit-form]`),
		chromedp.SetValue(`#edit-until`, day.Add(14*time.Hour).Format("2006-01-02T15:04")),
		chromedp.Click(`[data-testid=edit-save]`), chromedp.WaitVisible(`[data-testid=clash]`))
	if err != nil {
		t.Fatalf("extend into bo's booking: %v", err)
	}
	if msg := text(t, tab, `[data-testid=form-error]`); !strings.Contains(msg, fmt.Sprintf("bo@example.com's booking #%d", theirs)) ||
		!strings.Contains(msg, "13:00–17:00 UTC") {
		t.Errorf("the refusal %q does not name bo's booking", msg)
	}
	browsertest.Screenshot(t, tab, "booking-edit-clash")
	err = chromedp.Do(tab, chromedp.Click(`[data-testid="extend-1h"]`), chromedp.WaitVisible(`[data-testid=form-done]`))
	if err != nil || !strings.Contains(text(t, tab, `[data-testid=booking-window]`), "09:00–13:00 UTC") {
		t.Fatalf("extend 1h: %v, window %q", err, text(t, tab, `[data-testid=booking-window]`))
	}

	// I'm done early: bo's queued job starts on the freed GPUs.
	now := time.Now()
	active := &models.Booking{UserID: ana, Kind: models.BookingKindBooking, GPUCount: 8, StartsAt: now.Add(-time.Minute), EndsAt: now.Add(3 * time.Hour), Source: "test", GPUModel: "H100"}
	if _, err := s.DB.Bun.NewInsert().Model(active).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	boTok, _ := s.UserToken(t, models.RoleMember)
	st, body := s.Do(t, "POST", "/api/v1/queue/submit", boTok, `{"gpu_count":2,"executor":"lease","name":"waits-for-ana"}`)
	if st != 201 {
		t.Fatalf("submit: %d %s", st, body)
	}
	var job struct{ ID int64 }
	mustJSON(t, body, &job)
	state := func() string {
		var st string
		_ = s.DB.Bun.NewSelect().Model((*models.Job)(nil)).Column("state").Where("id = ?", job.ID).Scan(t.Context(), &st)
		return st
	}
	waitFor(t, "a scheduling pass over the job", func() bool { return state() != "queued" || explained(t, s, job.ID) })
	if st := state(); st != "queued" {
		t.Fatalf("the job is %s while ana holds every GPU", st)
	}
	err = chromedp.Do(tab, chromedp.Navigate(fmt.Sprintf("%s/bookings/%d", s.URL, active.ID)), chromedp.Click(`[data-testid=end-now]`),
		chromedp.WaitVisible(`[data-testid=form-done]`))
	if err != nil || text(t, tab, `[data-testid=booking-state]`) != "ended" {
		t.Fatalf("end now: %v, state %q", err, text(t, tab, `[data-testid=booking-state]`))
	}
	waitFor(t, "the queued job to start", func() bool { return state() != "queued" })
	browsertest.Screenshot(t, tab, "booking-ended")

	// A weekday series, one occurrence canceled.
	err = chromedp.Do(tab, chromedp.Navigate(s.URL+"/bookings/series/new"), chromedp.WaitVisible(`[data-testid=series-form]`),
		chromedp.SetValue(`#series-note`, "reading group"), chromedp.Click(`[data-testid=series-save]`), chromedp.WaitVisible(`[data-testid=occurrences]`))
	if err != nil {
		t.Fatalf("series: %v", err)
	}
	n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=occurrence]').length`))
	if err != nil || n < 8 || n > 10 {
		t.Fatalf("%d occurrences of weekdays over two weeks (%v)", n, err)
	}
	err = chromedp.Do(tab, chromedp.Click(`[data-testid=occurrence]:nth-child(2) a`), chromedp.WaitVisible(`[data-testid=cancel-booking]`),
		chromedp.Click(`[data-testid=cancel-booking]`), chromedp.WaitVisible(`[data-testid=form-done]`))
	if err != nil {
		t.Fatalf("cancel one occurrence: %v", err)
	}
	if c, _ := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=occurrence][data-state=canceled]').length`)); c != 1 {
		t.Fatalf("%d occurrences canceled, want 1", c)
	}
	browsertest.Screenshot(t, tab, "booking-series-one-canceled")

	// At phone width the booking page fits the screen.
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=booking-detail]`)); err != nil {
		t.Fatal(err)
	}
	if fits, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth + 1`)); err != nil || !fits {
		browsertest.Screenshot(t, tab, "booking-phone-failed")
		t.Fatalf("the booking page is wider than a phone (%v)", err)
	}
	browsertest.Screenshot(t, tab, "booking-phone")

	// The admin imports a sheet: preview per row, then confirm.
	root := otherUser(t, tab)
	devSignIn(t, root, s, "root@example.com")
	d := day.AddDate(0, 0, 2).Format("2006-01-02")
	sheet := fmt.Sprintf("email,gpus,gpu_model,node,gpu_ids,start,end,note\nana@example.com,1,H100,,,%s 09:00,%s 10:00,imported\n"+
		"bo@example.com,,,gpu-a,0;1,%s 09:00,%s 10:00,\nnobody@example.com,1,,,,%s 09:00,%s 10:00,\n", d, d, d, d, d, d)
	err = chromedp.Do(root, chromedp.Navigate(s.URL+"/admin/import"), chromedp.WaitVisible(`[data-testid=import-form]`),
		chromedp.SetValue(`#import-sheet`, sheet), chromedp.SetValue(`#import-tz`, "Europe/Berlin"),
		chromedp.Click(`input[name=skip_invalid]`), chromedp.Click(`[data-testid=import-preview]`), chromedp.WaitVisible(`[data-testid=import-confirm]`))
	if err != nil {
		t.Fatalf("import preview: %v", err)
	}
	if sum := text(t, root, `[data-testid=import-summary]`); !strings.Contains(sum, "2 to create, 0 already imported, 1 invalid") {
		t.Errorf("preview summary %q", sum)
	}
	if bad := text(t, root, `[data-status=invalid]`); !strings.Contains(bad, "unknown email nobody@example.com") {
		t.Errorf("the bad row says %q", bad)
	}
	browsertest.Screenshot(t, root, "import-preview")
	err = chromedp.Do(root, chromedp.Click(`[data-testid=import-confirm]`), chromedp.WaitVisible(`[data-testid=form-done]`))
	if err != nil || !strings.Contains(text(t, root, `[data-testid=form-done]`), "Imported 2 bookings.") {
		t.Fatalf("import confirm: %v %q", err, text(t, root, `[data-testid=form-done]`))
	}
	browsertest.Screenshot(t, root, "import-done")
}

// A member makes their feed address on /settings/feeds in a browser and a
// calendar client's parser reads their booking from it; at phone width the
// page fits.
func TestCalendarFeedInBrowser(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	s.Login(t, "root@example.com")
	s.Login(t, "ana@example.com")
	id := calSeed(t, s, calUserID(t, s, "ana@example.com"), 2, 9, 12)
	tab := browsertest.New(t, 60*time.Second)
	devSignIn(t, tab, s, "ana@example.com")
	err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.URL+"/settings/feeds"),
		chromedp.Click(`[data-testid=regenerate-mine]`), chromedp.WaitVisible(`[data-testid=feed-url]`))
	if err != nil {
		t.Fatalf("make the feed address: %v", err)
	}
	fits, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth + 1`))
	browsertest.Screenshot(t, tab, "feeds-phone")
	if err != nil || !fits {
		t.Errorf("the feeds page is wider than a phone (%v)", err)
	}
	u := text(t, tab, `[data-testid=feed-url]`)
	st, ev := feedEvents(t, u)
	if st != 200 || ev[fmt.Sprintf("booking-%d@gpuscheduler", id)] != "CONFIRMED/0" {
		t.Fatalf("the feed at %s: %d %v", u, st, ev)
	}
}
