package web_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestJobPagePartSelector: the page of a job on two nodes offers a link
// per part (plain ?part=N links, working without JavaScript); part 0 is
// shown first, the link to part 1 shows part 1's output, and the live
// output then follows part 1: a line part 1 prints after the page loaded
// arrives over the event stream, and part 0's never shows. A part the job
// does not have is refused with a sentence.
func TestJobPagePartSelector(t *testing.T) {
	t.Parallel()
	w := newWorkloadCluster(t)
	dir, err := os.MkdirTemp("", "gpusched-parts-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil { // the jobs may run as nobody
		t.Fatal(err)
	}
	// Each part prints its rank, then waits for the test's go-ahead and
	// prints a second line.
	cmd := fmt.Sprintf(`echo "first line of rank $NODE_RANK"; while [ ! -e %s/go ]; do sleep 0.1; done; echo "second line of rank $NODE_RANK"; sleep 60`, dir)
	id := w.submit(t, fmt.Sprintf(`{"command":%q,"nodes":2,"gpus_per_node":4,"workdir":"/","name":"two-parts"}`, cmd))
	w.waitState(t, id, models.JobRunning, time.Minute)
	waitFor(t, "both parts printed their first line", func() bool {
		for part := range 2 {
			st, out := w.s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d/logs?part=%d", id, part), w.token, "")
			if st != 200 || !strings.Contains(string(out), fmt.Sprintf("first line of rank %d", part)) {
				return false
			}
		}
		return true
	})

	// Without JavaScript: the links are there and ?part=1 is part 1's output.
	page := w.s.Login(t, w.user.Email)
	body := pageText(t, page, fmt.Sprintf("%s/jobs/%d?part=1", w.s.URL, id), http.StatusOK)
	for _, want := range []string{fmt.Sprintf(`href="/jobs/%d?part=0"`, id), fmt.Sprintf(`href="/jobs/%d?part=1"`, id),
		"first line of rank 1", fmt.Sprintf(`/fragments/jobs/%d/logs?part=1`, id)} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of part 1 lacks %q", want)
		}
	}
	if strings.Contains(body, "first line of rank 0") {
		t.Error("the page of part 1 shows part 0's output")
	}
	for q, says := range map[string]string{"2": "runs on 2 nodes (parts 0–1); it has no part 2", "x": "must be a number"} {
		if b := pageText(t, page, fmt.Sprintf("%s/jobs/%d?part=%s", w.s.URL, id, q), http.StatusBadRequest); !strings.Contains(b, says) {
			t.Errorf("?part=%s: the answer does not say %q", q, says)
		}
	}

	tab := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(tab,
		chromedp.Navigate(fmt.Sprintf("%s/jobs/%d", w.s.URL, id)),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, w.user.Email),
		chromedp.Click(`form[action="/auth/dev"] button[type=submit]`),
		chromedp.WaitVisible(`body`),
		chromedp.Navigate(fmt.Sprintf("%s/jobs/%d", w.s.URL, id)),
		chromedp.WaitVisible(`[data-testid=log-parts]`),
	); err != nil {
		t.Fatalf("sign in and open the job page: %v", err)
	}
	poll(t, tab, "part 0 shown first, part 0 current", `
		document.querySelector('[data-testid=job-log]').textContent.includes('first line of rank 0') &&
		document.querySelector('[data-testid=log-parts] [aria-current=page]').dataset.part === '0' &&
		document.querySelectorAll('[data-testid=log-parts] a').length === 2`, 20*time.Second)
	if err := chromedp.Do(tab,
		chromedp.Click(`[data-testid=log-parts] a[data-part="1"]`),
		chromedp.WaitVisible(`[data-testid=job-log][data-part="1"]`),
	); err != nil {
		t.Fatalf("choose part 1: %v", err)
	}
	poll(t, tab, "part 1's output, part 1 current", `
		location.search === '?part=1' &&
		document.querySelector('[data-testid=job-log]').textContent.includes('first line of rank 1') &&
		!document.querySelector('[data-testid=job-log]').textContent.includes('rank 0') &&
		document.querySelector('[data-testid=log-parts] [aria-current=page]').dataset.part === '1'`, 20*time.Second)
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	poll(t, tab, "part 1's new line, live", `
		document.querySelector('[data-testid=job-log]').textContent.includes('second line of rank 1') &&
		!document.querySelector('[data-testid=job-log]').textContent.includes('rank 0')`, 30*time.Second)
	browsertest.Screenshot(t, tab, "job-page-parts")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=log-parts]`)); err != nil {
		t.Fatal(err)
	}
	if wide, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > 390`)); err != nil || wide {
		t.Errorf("the job page with its parts is wider than a phone (%v)", err)
	}
	if st, out := w.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), w.token, ""); st != 200 {
		t.Logf("cancel: %d %s", st, out)
	}
}

// pageText gets u with c and returns its body, failing unless it answers
// status.
func pageText(t *testing.T, c *http.Client, u string, status int) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := readAll(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %s", u, resp.StatusCode, status, b)
	}
	return string(b)
}
