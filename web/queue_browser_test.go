package web_test

import (
	"os/user"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// In a real browser: submit a job from the queue page and see it in the
// tables without a reload (SSE), open its page and follow its output live
// until it ends.
func TestQueueSubmitAndFollowLogsInBrowser(t *testing.T) {
	t.Parallel()
	s, ops := startSSO(t)
	startFakeNodes(t, s, "1x8:H100-80GB")
	tab := browsertest.New(t, 90*time.Second)
	browserSignIn(t, tab, s.URL, ops["oidc"], "oidc", "ana@example.com", "/queue")
	// The node runs ana's jobs as the Unix user running this test.
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	ana, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := models.SetUnixUser(t.Context(), s.DB.Bun, ana.ID, me.Username, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the node to register", func() bool {
		var n int
		_ = s.DB.Bun.NewRaw("SELECT count(*) FROM gpus").Scan(t.Context(), &n)
		return n == 8
	})
	err = chromedp.Do(tab,
		chromedp.Navigate(s.URL+"/queue"),
		chromedp.WaitVisible(`#submit-job summary`),
		chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`),
		chromedp.Click(`#submit-job summary`),
		chromedp.SetValue(`#job-name`, "follow-me"),
		chromedp.SetValue(`#job-gpus`, "1"),
		chromedp.SetValue(`#job-command`, `for i in 1 2 3 4 5 6; do echo "step $i"; sleep 1; done`),
		chromedp.SetValue(`#job-duration`, "5m"),
		chromedp.Click(`[data-testid=submit-job]`),
		chromedp.WaitVisible(`[data-testid=submit-done]`),
	)
	if err != nil {
		t.Fatalf("submit from the queue page: %v", err)
	}
	poll(t, tab, "the job in the queue's tables without a reload",
		`window.__sameDocument === true && document.querySelector('#queue').innerText.includes('follow-me')`, 10*time.Second)
	browsertest.Screenshot(t, tab, "queue-submitted")

	err = chromedp.Do(tab,
		// Clicked in one task of the page: the live queue may swap its
		// table (the job starting) between chromedp's finding the node and
		// its mouse events, which then hit a node that is gone.
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#queue [data-testid=job-link]').click()`),
		chromedp.WaitVisible(`[data-testid=job-log]`),
		// Count the "logs" events the page's event stream delivers.
		chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true; window.__logEvents = 0;
			document.body.addEventListener('htmx:sseMessage', e => { if (e.detail && e.detail.type === 'logs') window.__logEvents++ })`),
	)
	if err != nil {
		t.Fatalf("open the job's page: %v", err)
	}
	poll(t, tab, "the first lines of output", `document.querySelector('[data-testid=job-log]').innerText.includes('step 2')`, 20*time.Second)
	first, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=job-log]').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if contains([]byte(first), "step 6") {
		t.Fatalf("the output was complete at first sight, so following it was not tested: %q", first)
	}
	browsertest.Screenshot(t, tab, "job-running")
	poll(t, tab, "the rest of the output, followed without a reload",
		`window.__sameDocument === true && document.querySelector('[data-testid=job-log]').innerText.includes('step 6') &&
		 document.querySelector('[data-testid=job-log]').innerText.includes('end of output')`, 30*time.Second)
	poll(t, tab, "the job's state to turn completed (SSE)",
		`document.querySelector('[data-testid=job-state]').innerText === 'completed' &&
		 document.querySelector('[data-testid=job-timeline]').innerText.includes('running')`, 15*time.Second)
	browsertest.Screenshot(t, tab, "job-logs")
	if n, err := chromedp.Run(tab, chromedp.Evaluate[int](`window.__logEvents`)); err != nil || n == 0 {
		t.Errorf("the page got %d \"logs\" events over SSE while the job wrote its output (%v)", n, err)
	}

	// At phone width the job and queue pages fit the screen (tables scroll in their cards).
	for _, page := range []string{"/jobs/1", "/queue"} {
		if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.URL+page), chromedp.WaitVisible(`main`)); err != nil {
			t.Fatal(err)
		}
		fits, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth + 1`))
		if err != nil || !fits {
			browsertest.Screenshot(t, tab, "phone-failed")
			t.Fatalf("%s is wider than a phone's screen (%v)", page, err)
		}
	}
	browsertest.Screenshot(t, tab, "queue-phone")
}
