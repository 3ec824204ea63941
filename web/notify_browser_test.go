package web_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// In a real browser: change a preference on /settings/notifications (saved
// without JavaScript, by the form), then see the bell's unread count rise
// without a reload when a notification arrives, and the list page show it.
func TestNotifyPreferencesAndBellInBrowser(t *testing.T) {
	t.Parallel()
	s, ops := startSSO(t)
	tab := browsertest.New(t, 60*time.Second)
	browserSignIn(t, tab, s.URL, ops["oidc"], "oidc", "ana@example.com", "/settings/notifications")
	err := chromedp.Do(tab,
		chromedp.WaitVisible(`[data-testid=prefs-form]`),
		chromedp.Click(`[data-testid="pref-job.finished-email"]`), // on by default: now off
		chromedp.Click(`[data-testid="pref-job.started-in_app"]`), // off by default: now on
		chromedp.Click(`[data-testid=save-prefs]`),
		chromedp.WaitVisible(`[data-testid=saved]`),
	)
	if err != nil {
		browsertest.Screenshot(t, tab, "notify-prefs-failed")
		t.Fatalf("save preferences: %v", err)
	}
	ana, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	p, err := models.GetPrefs(t.Context(), s.DB.Bun, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(p.Events[models.EventJobFinished], models.KindEmail) || !slices.Contains(p.Events[models.EventJobStarted], models.KindInApp) ||
		!slices.Contains(p.Events[models.EventJobFailed], models.KindEmail) {
		t.Fatalf("saved preferences %v", p.Events)
	}

	if err := chromedp.Do(tab, chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(`[data-testid=bell]`),
		chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`)); err != nil {
		t.Fatal(err)
	}
	// The bell's stream is open: the server subscribed it before answering,
	// and the page hears the stream open before any event on it.
	waitFor(t, "the bell's event stream", func() bool {
		_, body := s.Do(t, "GET", "/metrics", "", "")
		return strings.Contains(string(body), "gpusched_sse_clients 1")
	})
	err = s.DB.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
		return models.Emit(ctx, tx, models.NotifyEvent{Name: models.EventGPUIdle, Subject: "job:1", Users: []int64{ana.ID},
			Payload: models.EventPayload{Title: "Your 2 GPUs have been idle for 2h", Job: &models.EventJob{ID: 1}}}, time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	poll(t, tab, "the bell's count without a reload",
		`window.__sameDocument === true && document.querySelector('[data-testid=bell-count]')?.innerText === '1'`, 10*time.Second)
	browsertest.Screenshot(t, tab, "notify-bell")
	err = chromedp.Do(tab, chromedp.Click(`[data-testid=bell]`), chromedp.WaitVisible(`[data-testid=notification-list]`))
	if err != nil {
		t.Fatal(err)
	}
	poll(t, tab, "the idle notification listed", `document.querySelector('[data-testid=notification][data-event="gpu.idle"]') !== null`, 5*time.Second)
	if err := chromedp.Do(tab, chromedp.Click(`[data-testid=mark-all-read]`), chromedp.WaitNotPresent(`[data-testid=mark-all-read]`)); err != nil {
		t.Fatal(err)
	}
	poll(t, tab, "the count gone once read", `document.querySelector('[data-testid=bell-count]') === null`, 5*time.Second)
}
