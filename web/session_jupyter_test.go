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
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// jupyterOrSkip skips a test when Debian's Jupyter Notebook is missing
// (.ci/run installs it).
func jupyterOrSkip(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/jupyter-notebook"); err != nil {
		t.Skip("jupyter-notebook is not installed (apt-get install jupyter-notebook)")
	}
}

// End to end: a Jupyter session started through the API on a node agent
// with fake GPUs; Chromium without a dashboard session is sent to sign in,
// signs in, lands in Jupyter through /s/{id}/, creates a notebook (Jupyter's
// own XSRF check through the proxy), runs a cell over the kernel's
// WebSocket that prints CUDA_VISIBLE_DEVICES and sees the session's GPUs,
// and saves it; another member gets a 404; stopping the session keeps the
// notebook on disk.
func TestJupyterSessionThroughProxy(t *testing.T) {
	t.Parallel()
	jupyterOrSkip(t)
	s := testserver.NewWith(t, testserver.Options{SessionOrigin: true})
	_, admin := s.UserToken(t, models.RoleAdmin) // the dev sign-in makes the first user admin
	startSessionNode(t, s, "nb-1", "1x4:H100-80GB")
	tok, owner := sessionMember(t, s)
	dir := sessionWorkdir(t)
	sess := startSession(t, s, tok, fmt.Sprintf(`{"kind":"jupyter","gpu_count":2,"time_limit":"1h","workdir":%q}`, dir))
	if want := s.URL + fmt.Sprintf("/s/%d/", sess.ID); sess.URL != want {
		t.Errorf("url %q, want %q", sess.URL, want)
	}
	gpus := gpusOf(t, s, sess.ID)

	// Another member: 404, as if it did not exist; no cookie: sign in.
	other := s.Login(t, "other-"+owner.Email)
	if st, _, _ := fetchSession(t, s, other, fmt.Sprintf("/s/%d/api/status", sess.ID)); st != http.StatusNotFound {
		t.Errorf("another member got %d, want 404", st)
	}
	// An admin gets through, audited.
	if st, _, _ := fetchSession(t, s, s.Login(t, admin.Email), fmt.Sprintf("/s/%d/api/status", sess.ID)); st != http.StatusOK {
		t.Errorf("an admin got %d, want 200", st)
	}
	var audited int
	if err := s.DB.Bun.NewRaw(`SELECT count(*) FROM audit_log WHERE action = 'session.open' AND target_id = ?`, fmt.Sprint(sess.ID)).Scan(t.Context(), &audited); err != nil || audited != 1 {
		t.Errorf("admin openings audited: %d (%v), want 1", audited, err)
	}
	anon := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := anon.Get(s.URL + fmt.Sprintf("/s/%d/tree", sess.ID))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/login?next=") {
		t.Errorf("no cookie: %d to %q, want 303 to the sign-in page", resp.StatusCode, loc)
	}

	tab := browsertest.New(t, 150*time.Second)
	base := fmt.Sprintf("%s/s/%d/", s.URL, sess.ID)
	if err := chromedp.Do(tab,
		chromedp.Navigate(base),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, owner.Email),
		chromedp.Click(`#dev-email ~ button[type=submit], form[action="/auth/dev"] button[type=submit]`),
		chromedp.WaitVisible(`#notebook_list`),
	); err != nil {
		browsertest.Screenshot(t, tab, "failed-jupyter-signin")
		t.Fatalf("sign in and open Jupyter through the proxy: %v", err)
	}
	browsertest.Screenshot(t, tab, "session-jupyter-tree")
	// A new notebook through Jupyter's contents API, with its XSRF token.
	created, err := chromedp.Run(tab, chromedp.Evaluate[string](`(async () => {
		const x = document.cookie.split('; ').find(c => c.startsWith('_xsrf=')).slice(6);
		const r = await fetch('api/contents', {method: 'POST', headers: {'X-XSRFToken': x, 'Content-Type': 'application/json'},
			body: JSON.stringify({type: 'notebook'})});
		const text = await r.text();
		return r.status + ' ' + (r.status === 201 ? JSON.parse(text).path : text);
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	name, ok := strings.CutPrefix(created, "201 ")
	if !ok {
		_, logs := s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d/logs", sess.ID), tok, "")
		t.Fatalf("create a notebook: %q\n%s", created, logs)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(base+"notebooks/"+name)); err != nil {
		t.Fatal(err)
	}
	poll(t, tab, "the kernel to be ready", `typeof Jupyter !== 'undefined' && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()`, 60*time.Second)
	if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`
		Jupyter.notebook.get_cell(0).set_text("import os; print('gpus=' + os.environ['CUDA_VISIBLE_DEVICES'])");
		Jupyter.notebook.execute_cell_and_select_below(); true`)); err != nil {
		t.Fatal(err)
	}
	poll(t, tab, "the cell's output", fmt.Sprintf(`Array.from(document.querySelectorAll('.output_area pre')).some(e => e.textContent.includes('gpus=%s'))`, gpus), 60*time.Second)
	browsertest.Screenshot(t, tab, "session-jupyter-notebook")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844)); err == nil {
		browsertest.Screenshot(t, tab, "session-jupyter-notebook-390")
	}
	if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`Jupyter.notebook.save_notebook(); true`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the notebook saved with its output", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, name))
		return err == nil && strings.Contains(string(b), "gpus="+gpus)
	})

	// Stopping the session ends the job; the notebook stays.
	if st, b := s.Do(t, "DELETE", fmt.Sprintf("/api/v1/sessions/%d", sess.ID), tok, ""); st != 200 {
		t.Fatalf("stop: %d %s", st, b)
	}
	waitFor(t, "the session's job to end", func() bool {
		j, err := models.GetJob(t.Context(), s.DB.Bun, sess.ID)
		return err == nil && j.State == models.JobCanceled
	})
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Errorf("the notebook is gone after the stop: %v", err)
	}
}

// gpusOf is CUDA_VISIBLE_DEVICES of job id's GPUs ("0,1").
func gpusOf(t *testing.T, s *testserver.Server, id int64) string {
	t.Helper()
	var idx []string
	err := s.DB.Bun.NewRaw(`SELECT g.idx::text FROM allocations a JOIN gpus g ON g.id = a.gpu_id
		WHERE a.job_id = ? AND a.released_at IS NULL ORDER BY g.idx`, id).Scan(t.Context(), &idx)
	if err != nil || len(idx) == 0 {
		t.Fatalf("GPUs of job %d: %v %v", id, idx, err)
	}
	return strings.Join(idx, ",")
}
