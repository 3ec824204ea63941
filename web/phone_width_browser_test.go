package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// phoneWidth is the width of a common phone's screen in CSS pixels.
const phoneWidth = 390

// phoneOverflow lists, in the open page, what does not fit a phone: the
// document wider than the screen, and table cells that are shown but lie
// beyond the screen's edge (a column scrolled out of a table's box) or are
// hidden outright (an empty cell may be hidden: it says nothing). Cells of a table that is not shown (a closed details
// element) and of a hidden header row (a table drawn as cards) do not count.
const phoneOverflow = `(() => {
	const w = window.innerWidth, out = [];
	const doc = document.documentElement.scrollWidth;
	if (doc > w) out.push("the page is " + doc + " px wide");
	for (const table of document.querySelectorAll("main table")) {
		if (table.getClientRects().length === 0) continue;
		const name = table.dataset.testid || table.className || "table";
		for (const cell of table.querySelectorAll("tbody td, tbody th")) {
			const label = (cell.dataset.label || cell.cellIndex) + " of " + name;
			if (getComputedStyle(cell).display === "none") {
				if (cell.textContent.trim() !== "") out.push("hidden cell: " + label); // an empty one loses nothing
				continue;
			}
			const r = cell.getBoundingClientRect();
			if (r.width === 0 && r.height === 0) continue;
			if (r.right > w + 1 || r.left < -1) out.push("off screen (" + Math.round(r.left) + "–" + Math.round(r.right) + " px): " + label);
		}
	}
	return [...new Set(out)].slice(0, 12);
})()`

// Every dashboard page, as an admin and as a member, with long names in the
// data, fits a 390 px phone: no horizontal scrolling of the page, and no
// table column lost beyond the screen's edge (the queue's tables become
// cards). The queue and the notification settings are saved as screenshots
// (GPUSCHED_SCREENSHOTS) to be looked at.
func TestEveryPageFitsAPhone(t *testing.T) {
	t.Parallel()
	f := newBerlinFixture(t)
	ctx := context.Background()
	long := strings.Repeat("very-long-unbroken-name-", 5)
	member, err := models.CreateUser(ctx, f.s.DB.Bun, "a.member.with.a.rather.long.address-"+time.Now().Format("150405")+"@research-department.example.com",
		"A Member With A Rather Long Name", models.RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []*models.Job{
		{Name: long + "pending", OwnerID: member.ID, GPUCount: 2, Executor: models.ExecutorLease},
		{Name: long + "admin", OwnerID: f.ana.ID, GPUCount: 1, Executor: models.ExecutorLease},
	} {
		if err := models.CreateJob(ctx, f.s.DB.Pool, j, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	pages := berlinPages(t, f)
	admin := browsertest.New(t, 4*time.Minute)
	phoneSignIn(t, admin, f.s.URL, f.ana.Email)
	memberTab := otherUser(t, admin)
	phoneSignIn(t, memberTab, f.s.URL, member.Email)
	for _, who := range []struct {
		name string
		tab  context.Context
	}{{"admin", admin}, {"member", memberTab}} {
		for _, page := range pages {
			if strings.HasPrefix(page, "/fragments/") {
				continue // parts of pages, checked inside them
			}
			if who.name == "member" && strings.HasPrefix(page, "/admin") {
				continue // refused to members
			}
			if err := chromedp.Do(who.tab, chromedp.Navigate(f.s.URL+page), chromedp.WaitReady(`body`)); err != nil {
				t.Fatalf("%s opens %s: %v", who.name, page, err)
			}
			bad, err := chromedp.Run(who.tab, chromedp.Evaluate[[]string](phoneOverflow))
			if err != nil {
				t.Fatalf("%s on %s: %v", who.name, page, err)
			}
			if len(bad) > 0 {
				browsertest.Screenshot(t, who.tab, "phone-"+who.name+strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "-").Replace(page))
				t.Errorf("%s's %s at %d px: %s", who.name, page, phoneWidth, strings.Join(bad, "; "))
			}
		}
	}
	for _, page := range []string{"/queue", "/settings/notifications"} {
		if err := chromedp.Do(admin, chromedp.Navigate(f.s.URL+page), chromedp.WaitReady(`body`)); err != nil {
			t.Fatal(err)
		}
		browsertest.Screenshot(t, admin, "phone"+strings.ReplaceAll(page, "/", "-"))
	}
	// The running lease names its node and GPU; the queue's cards keep
	// every column's name.
	if err := chromedp.Do(admin, chromedp.Navigate(f.s.URL+"/queue"), chromedp.WaitVisible(`[data-testid=running-job]`)); err != nil {
		t.Fatal(err)
	}
	runsOn, err := chromedp.Run(admin, chromedp.Evaluate[string](`document.querySelector('[data-testid=running-job] [data-field=runs-on]').innerText`))
	if err != nil || !strings.Contains(runsOn, " · GPU ") {
		t.Errorf("the running lease's Runs on says %q (%v), want its node and GPU (\"node · GPU 0\")", runsOn, err)
	}
}

// phoneSignIn signs email in through the dev sign-in at phone width.
func phoneSignIn(t *testing.T, tab context.Context, base, email string) {
	t.Helper()
	err := chromedp.Do(tab,
		chromedp.EmulateViewport(phoneWidth, 844),
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, email),
		chromedp.Click(`form[action="/auth/dev"] button[type=submit]`),
		chromedp.WaitNotPresent(`#dev-email`),
	)
	if err != nil {
		t.Fatalf("sign in %s: %v", email, err)
	}
}
