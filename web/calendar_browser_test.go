package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The calendar in a real browser whose clock is in New York: the first
// sign-in takes the browser's zone, so every time on the page is EST; the
// member switches to Europe/Berlin in Settings and every time changes to
// CET; she drags across two GPUs' rows to pre-fill the form and books; the
// keyboard picks a half-day; at phone width the page fits and the grid
// scrolls sideways.
func TestCalendarZoneAndDragInBrowser(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	bo := s.Login(t, "bo@example.com")
	tomorrow := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	if st, body, _ := postForm(t, s, bo, "/bookings", url.Values{"gpu_count": {"2"}, "note": {"bo's demo"},
		"starts_at": {tomorrow.Add(14 * time.Hour).Format("2006-01-02T15:04")}, "ends_at": {tomorrow.Add(16 * time.Hour).Format("2006-01-02T15:04")}}); st != 303 {
		t.Fatalf("bo books: %d %s", st, body)
	}

	tab := browsertest.New(t, 120*time.Second)
	t0 := time.Now()
	step := func(what string) { t.Logf("%6.1fs %s", time.Since(t0).Seconds(), what) }
	if err := chromedp.Do(tab, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/New_York"})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Do(tab,
		chromedp.Navigate(s.URL+"/bookings"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "ana@example.com"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=nav-zone]`),
	)
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
	// The page reloads once the browser's zone is stored: poll across it.
	var zoneErr error
	if !eventually(15*time.Second, func() bool {
		ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid=nav-zone]') && document.querySelector('[data-testid=nav-zone]').textContent.trim() === 'EST'`))
		zoneErr = err
		return err == nil && ok
	}) {
		t.Fatalf("the browser's zone is not shown after the first sign-in (%v)", zoneErr)
	}
	if u, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "ana@example.com"); err != nil || u.TimeZone != "America/New_York" {
		t.Fatalf("ana's stored zone %q (%v), want the browser's", u.TimeZone, err)
	}
	bar := func(zone string) string {
		t.Helper()
		if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/bookings"), chromedp.WaitVisible(`[data-testid=booking-link]`)); err != nil {
			t.Fatal(err)
		}
		txt, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=booking-link]').title + '\n' + document.body.innerText`))
		if err != nil {
			t.Fatal(err)
		}
		for _, other := range []string{"UTC", "EST", "CET"} {
			if other != zone && strings.Contains(txt, other) {
				t.Errorf("in %s the bookings page still shows a time in %s", zone, other)
			}
		}
		return txt
	}
	if txt := bar("EST"); !strings.Contains(txt, "09:00–11:00 EST") {
		t.Errorf("bo's booking in New York time: %q", firstLine(txt))
	}

	step("Settings → Time zone")
	// Settings → Time zone: Berlin.
	err = chromedp.Do(tab,
		chromedp.Navigate(s.URL+"/settings/time-zone"),
		chromedp.WaitVisible(`[data-testid=zone-input]`),
		chromedp.SetValue(`[data-testid=zone-input]`, "Europe/Berlin"),
		chromedp.Click(`[data-testid=zone-save]`),
		chromedp.WaitVisible(`[data-testid=zone-saved]`),
	)
	if err != nil {
		t.Fatalf("choose Europe/Berlin: %v", err)
	}
	if txt := bar("CET"); !strings.Contains(txt, "15:00–17:00 CET") {
		t.Errorf("bo's booking in Berlin time: %q", firstLine(txt))
	}
	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(`[data-testid=next24]`)); err != nil {
		t.Fatal(err)
	}
	overview, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(overview, "UTC") || strings.Contains(overview, "EST") || !strings.Contains(overview, "CET") {
		t.Errorf("the overview's times are not all in CET:\n%s", overview)
	}
	if !strings.Contains(overview, "free until") || !strings.Contains(overview, "bo's booking") {
		t.Errorf("the overview's tiles do not say until when GPUs are free:\n%s", overview)
	}
	browsertest.Screenshot(t, tab, "calendar-overview")

	step("Drag across GPUs #2 ")
	// Drag across GPUs #2 and #3 from 10:00 to 14:00 tomorrow, Berlin time.
	berlin, _ := time.LoadLocation("Europe/Berlin")
	day := time.Now().In(berlin).AddDate(0, 0, 1)
	from := time.Date(day.Year(), day.Month(), day.Day(), 10, 0, 0, 0, berlin)
	until := from.Add(4 * time.Hour)
	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/bookings"), chromedp.WaitVisible(`[data-calendar]`)); err != nil {
		t.Fatal(err)
	}
	xy, err := chromedp.Run(tab, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
		const g = document.querySelector('[data-calendar]'), snaps = JSON.parse(g.dataset.snaps);
		const rows = document.querySelectorAll('.cg-row .cg-track'), a = rows[2], b = rows[3];
		window.scrollTo(0, a.getBoundingClientRect().top + window.scrollY - 300);
		const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
		const f = snaps.find(s => s[1] === %q)[0], e = snaps.find(s => s[1] === %q)[0];
		return [ra.left + ra.width * f / 100 + 1, ra.top + ra.height / 2, rb.left + rb.width * e / 100 - 1, rb.top + rb.height / 2];
	})()`, from.Format("2006-01-02T15:04"), until.Format("2006-01-02T15:04"))))
	if err != nil || len(xy) != 4 {
		t.Fatalf("find the cells: %v %v", xy, err)
	}
	err = chromedp.Do(tab,
		chromedp.MouseEvent(chromedp.MousePressed, xy[0], xy[1], chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseMoved, (xy[0]+xy[2])/2, xy[1], chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, xy[2], xy[3], chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseReleased, xy[2], xy[3], chromedp.ButtonLeft, chromedp.ClickCount(1)),
	)
	if err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(tab, chromedp.Evaluate[string](`[document.querySelector('#bk-start').value, document.querySelector('#bk-end').value,
		document.querySelector('#bk-count').value, document.querySelectorAll('input[name=gpu_ids]:checked').length,
		document.querySelectorAll('[data-testid=selection]').length].join(' ')`))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%s %s 2 2 2", from.Format("2006-01-02T15:04"), until.Format("2006-01-02T15:04")); got != want {
		browsertest.Screenshot(t, tab, "calendar-drag-failed")
		dbg, _ := chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify(Array.from(document.querySelectorAll('.cg-row .cg-track')).slice(0,4).map(t => t.getBoundingClientRect()))`))
		t.Fatalf("after the drag the form says %q, want %q (cells %v, tracks %s)", got, want, xy, dbg)
	}
	browsertest.Screenshot(t, tab, "calendar-drag")
	err = chromedp.Do(tab,
		chromedp.SetValue(`#bk-note`, "dragged"),
		chromedp.Click(`[data-testid=book]`),
		chromedp.WaitVisible(`[data-testid=booking-done]`),
	)
	if err != nil {
		t.Fatalf("book the dragged window: %v", err)
	}
	poll(t, tab, "the dragged booking in the grid",
		fmt.Sprintf(`Array.from(document.querySelectorAll('[data-testid=booking-link]')).some(b => b.title.includes(%q) && b.title.includes('dragged'))`,
			from.Format("Mon 2 Jan 15:04")+"–"+until.Format("15:04 MST")), 10*time.Second)
	step("dragged booking shown")
	var b models.Booking
	if err := s.DB.Bun.NewSelect().Model(&b).Where("note = 'dragged'").Scan(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !b.StartsAt.Equal(from) || !b.EndsAt.Equal(until) {
		t.Errorf("the dragged booking is %v–%v, want %v–%v", b.StartsAt, b.EndsAt, from, until)
	}
	step("checked in the database")
	browsertest.Screenshot(t, tab, "calendar-booked")

	step("Keyboard: a row")
	// Keyboard: a row, → and Enter pick a half-day.
	err = chromedp.Do(tab,
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.cg-row .cg-track')[5].focus()`),
		chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.Enter),
	)
	if err != nil {
		t.Fatal(err)
	}
	start, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('#bk-start').value + ' ' + document.querySelector('#bk-end').value`))
	if err != nil || !(strings.Contains(start, "T00:00 ") || strings.Contains(start, "T12:00 ")) {
		t.Errorf("the keyboard picked %q (%v), want a half-day", start, err)
	}

	// A click on the capacity strip books any GPU for that half-day.
	slot, err := chromedp.Run(tab, chromedp.Evaluate[string](`(() => { const s = document.querySelectorAll('[data-testid=capacity-slot]')[3];
		s.scrollIntoView({block: 'center', inline: 'center'}); s.click();
		return [s.dataset.from, s.dataset.until, document.querySelector('#bk-start').value, document.querySelector('#bk-end').value].join(' '); })()`))
	if f := strings.Fields(slot); err != nil || len(f) != 4 || f[0] != f[2] || f[1] != f[3] {
		t.Errorf("a click on the capacity strip fills %q (%v)", slot, err)
	}

	step("Phone width:")
	// Phone width: the page fits, the grid scrolls sideways, a tap picks a cell.
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.URL+"/bookings"), chromedp.WaitVisible(`[data-testid=booking-link]`)); err != nil {
		t.Fatal(err)
	}
	step("phone loaded")
	fits, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth + 1 &&
		document.querySelector('.calendar-scroll').scrollWidth > document.querySelector('.calendar-scroll').clientWidth`))
	if err != nil || !fits {
		browsertest.Screenshot(t, tab, "calendar-phone-failed")
		t.Fatalf("at phone width the page is wider than the screen or the grid does not scroll (%v)", err)
	}
	step("phone checked")
	browsertest.Screenshot(t, tab, "calendar-phone")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	step("The day view: tomorr")
	// The day view: tomorrow by the hour.
	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/bookings?view=day&date="+from.Format("2006-01-02")), chromedp.WaitVisible(`[data-testid=booking-link]`)); err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, tab, "calendar-day")
	step("One row per node")
	// One row per node: both bookings in their own lanes.
	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/bookings?view=day&group=node&date="+from.Format("2006-01-02")), chromedp.WaitVisible(`[data-testid=booking-link]`)); err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=calendar-row]').length`))
	if err != nil || rows != 1 {
		t.Errorf("by node: %d rows (%v), want 1", rows, err)
	}
	browsertest.Screenshot(t, tab, "calendar-by-node")

	step("done")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
