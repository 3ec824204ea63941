package web_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// How the calendar draws, in a real browser 1400 px wide: the whole week
// fits without scrolling; the viewer's own booking has the booking colour
// the legend shows (a heavier edge marks it hers); a 15-minute job is
// drawn 15 minutes long, its label running on past it, whole; the day view
// opens at the working day (its first hour beside the row labels, or as
// near as the rest of the day allows) and scrolls to 24:00.
func TestCalendarDrawsInBrowser(t *testing.T) {
	t.Parallel()
	s := withNode(t, 2)
	ana, bo := s.Login(t, "ana@example.com"), s.Login(t, "bo@example.com")
	tomorrow := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	book := func(c any, from, to int, note string) {
		t.Helper()
		form := url.Values{"gpu_count": {"1"}, "note": {note}, "starts_at": {tomorrow.Add(time.Duration(from) * time.Hour).Format("2006-01-02T15:04")},
			"ends_at": {tomorrow.Add(time.Duration(to) * time.Hour).Format("2006-01-02T15:04")}}
		client := ana
		if c == "bo" {
			client = bo
		}
		if st, body, _ := postForm(t, s, client, "/bookings", form); st != 303 {
			t.Fatalf("%s books: %d %s", c, st, body)
		}
	}
	book("ana", 10, 12, "mine")
	book("bo", 13, 15, "his")
	u, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := models.CreateUserToken(t.Context(), s.DB.Bun, u.ID, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, b := s.Do(t, "POST", "/api/v1/queue/submit", tok, `{"gpu_count":1,"executor":"lease","name":"quick","estimated_duration":"15m"}`); st != 201 {
		t.Fatalf("submit: %d %s", st, b)
	}

	tab := browsertest.New(t, 90*time.Second)
	err = chromedp.Do(tab, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(s.URL+"/bookings"), chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "ana@example.com"), chromedp.Click(`form[action="/auth/dev"] button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=booking-link]`), chromedp.WaitVisible(`[data-testid=job-link]`))
	if err != nil {
		t.Fatalf("open the calendar: %v", err)
	}
	check := func(what, js string) {
		t.Helper()
		msg, err := chromedp.Run(tab, chromedp.Evaluate[string](js))
		if err != nil || msg != "" {
			browsertest.Screenshot(t, tab, "calendar-draw-failed")
			t.Errorf("%s: %s %v", what, msg, err)
		}
	}
	check("the week fits 1400 px", `(() => { const sc = document.querySelector('.calendar-scroll');
		return sc.scrollWidth <= sc.clientWidth ? '' : 'the week is ' + sc.scrollWidth + ' px in a ' + sc.clientWidth + ' px box'; })()`)
	check("own booking in the legend's colour", `(() => {
		const bars = [...document.querySelectorAll('[data-testid=booking-link]')];
		const mine = bars.find(b => b.textContent.includes('mine')), his = bars.find(b => b.textContent.includes('his'));
		const key = getComputedStyle(document.querySelector('.legend .cg-key.kind-booking:not(.is-tentative):not(.is-mine)'));
		const m = getComputedStyle(mine), h = getComputedStyle(his);
		if (m.backgroundColor !== key.backgroundColor || m.borderTopColor !== key.borderTopColor) return 'mine is ' + m.backgroundColor + '/' + m.borderTopColor + ', the legend ' + key.backgroundColor + '/' + key.borderTopColor;
		if (h.backgroundColor !== key.backgroundColor) return 'his is ' + h.backgroundColor;
		if (!(parseFloat(m.borderTopWidth) > parseFloat(h.borderTopWidth))) return 'mine is not marked: border ' + m.borderTopWidth;
		return ''; })()`)
	check("a 15-minute job drawn 15 minutes long", fmt.Sprintf(`(() => {
		const bar = document.querySelector('[data-testid=job-link]'), track = bar.closest('.cg-track');
		const want = track.getBoundingClientRect().width * 15 / (7 * 24 * 60), got = bar.getBoundingClientRect().width;
		if (got > Math.max(want, %d) + 1) return 'the bar is ' + got + ' px, 15 minutes are ' + want + ' px';
		const who = bar.querySelector('.cg-who'), r = who.getBoundingClientRect();
		if (who.scrollWidth > r.width + 1) return 'its label is cut: ' + who.scrollWidth + ' > ' + r.width;
		if (r.right <= bar.getBoundingClientRect().right) return 'its label does not run on past it';
		return ''; })()`, 3))

	browsertest.Screenshot(t, tab, "calendar-week-1400")
	day := tomorrow.Format("2006-01-02")
	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/bookings?view=day&date="+day), chromedp.WaitVisible(`[data-testid=booking-link]`)); err != nil {
		t.Fatal(err)
	}
	check("the day opens at the working day", `(() => {
		const sc = document.querySelector('.calendar-scroll'), label = sc.querySelector('.cg-head .cg-label').getBoundingClientRect();
		const first = [...sc.querySelectorAll('.cg-head .cg-col')].find(c => !c.classList.contains('is-off'));
		const x = first.getBoundingClientRect().left;
		const atEnd = sc.scrollLeft >= sc.scrollWidth - sc.clientWidth - 1; // the rest of the day is narrower than the box
		return sc.scrollLeft > 0 && x >= label.right - 1 && (Math.abs(x - label.right) <= 2 || atEnd) ? '' : 'hour ' + first.textContent + ' is at ' + x + ', not beside the labels (' + label.right + ') sl=' + sc.scrollLeft + ' off=' + first.offsetLeft + ' sw=' + sc.scrollWidth + ' cw=' + sc.clientWidth; })()`)
	check("the day scrolls to 24:00", `(() => {
		const sc = document.querySelector('.calendar-scroll'); sc.scrollLeft = sc.scrollWidth;
		const cols = [...sc.querySelectorAll('.cg-head .cg-col')], last = cols[cols.length - 1];
		const end = last.getBoundingClientRect().right, box = sc.getBoundingClientRect();
		return last.textContent.trim() === '23' && end <= box.right + 1 && end >= box.right - 3 ? '' : 'the last hour ' + last.textContent + ' ends at ' + end + ', the box at ' + box.right; })()`)
	browsertest.Screenshot(t, tab, "calendar-day-1400")
}
