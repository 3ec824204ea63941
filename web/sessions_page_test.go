package web_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// As a new user would: "Start a notebook" on the overview (a plain form
// post) lands on the Sessions page with it; one started from that page's
// form is offered Open once Jupyter answers, without a reload; the page fits a phone; Stop
// ends it.
func TestSessionsPageStartOpenStop(t *testing.T) {
	t.Parallel()
	jupyterOrSkip(t)
	s := testserver.New(t)
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	startSessionNode(t, s, "page-nb", "1x2:H100-80GB")
	_, owner := sessionMember(t, s)

	tab := browsertest.New(t, 150*time.Second)
	if err := chromedp.Do(tab,
		chromedp.Navigate(s.URL+"/"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, owner.Email),
		chromedp.Click(`form[action="/auth/dev"] button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=start-notebook] button`),
		chromedp.Click(`[data-testid=start-notebook] button`),
		chromedp.WaitVisible(`[data-testid=session-row]`),
	); err != nil {
		browsertest.Screenshot(t, tab, "failed-sessions-page")
		t.Fatalf("start a notebook from the overview: %v", err)
	}
	// That one starts in the user's home, which nobody has here: it fails
	// at once, or is stopped here first; then one starts in a working
	// directory from the page's form. The list follows without a reload.
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`(() => {
		const b = document.querySelector('[data-testid=session-stop]');
		if (b) b.closest('form').submit();
		return true;
	})()`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab,
		chromedp.WaitVisible(`[data-testid=no-sessions]`),
		chromedp.SetValue(`#nb-workdir`, sessionWorkdir(t)),
		chromedp.Click(`[data-testid=start-notebook-form] button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=session-list] [data-testid=session-row]`),
	); err != nil {
		browsertest.Screenshot(t, tab, "failed-sessions-page")
		t.Fatalf("start a notebook from the Sessions page: %v", err)
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible(`[data-testid=session-list] [data-testid=session-open]`)); err != nil {
		_, logs := s.Do(t, "GET", "/api/v1/jobs/2/logs", adminTok, "")
		t.Fatalf("the Sessions page never offered Open (%v); the session's output:\n%s", err, logs)
	}
	where, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-field=where]').innerText`))
	if err != nil || where != "ready" {
		t.Errorf("where: %q %v", where, err)
	}
	browsertest.Screenshot(t, tab, "sessions-page-desktop")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=session-open]`)); err != nil {
		t.Fatal(err)
	}
	fits, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth + 1`))
	if err != nil || !fits {
		t.Errorf("the Sessions page overflows 390 px (%v)", err)
	}
	browsertest.Screenshot(t, tab, "sessions-page-390")
	if err := chromedp.Do(tab, chromedp.Click(`[data-testid=session-stop]`), chromedp.WaitVisible(`[data-testid=sessions-page]`)); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if !eventually(30*time.Second, func() bool {
		_ = chromedp.Do(tab, chromedp.Reload(), chromedp.WaitVisible(`[data-testid=sessions-page]`))
		ended, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid=no-sessions]') &&
			!!document.querySelector('[data-testid=ended-sessions] [data-state=canceled]')`))
		return ended
	}) {
		t.Fatal("the stopped session is not listed as ended")
	}
}
