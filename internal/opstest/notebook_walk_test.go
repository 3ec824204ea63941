package opstest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/pgembed"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
)

// A newcomer's notebook on `make run` (gpusched serve --dev, one simulated
// node with one GPU, a real Jupyter), in a real browser: the GPU is busy, so
// "Start a notebook" on the overview leaves the session waiting and the
// Sessions page says where it is in the queue; when the GPU frees, the page
// shows Open by itself (no reload); Open lands in Jupyter through the
// session origin; a cell prints the session's GPU; left idle, the owner is
// warned (session.idle, on the notifications page), the session is
// stopped (session.stopped), the notebook is still in the working
// directory, and the job that waited behind it gets the GPU.
func TestNotebookWalkOnDevServer(t *testing.T) {
	t.Parallel()
	if _, err := pgembed.FindBinaries(); err != nil {
		t.Skipf("no PostgreSQL binaries: %v", err)
	}
	if _, err := exec.LookPath("jupyter-notebook"); err != nil {
		t.Fatal("jupyter-notebook is not installed (apt-get install jupyter-notebook python3-ipykernel); the notebook walk needs a real Jupyter")
	}
	data := openDir(t, "opstest-walk-")
	home := openDir(t, "opstest-walk-home-")
	port, sessPort := freePort(t), freePort(t)
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	origin := "http://127.0.0.1:" + strconv.Itoa(sessPort)
	dev := &Server{Proc: start(t, "dev", []string{"GPUSCHED_DATA_DIR=" + data, "DATABASE_URL=", "GPUSCHED_DATABASE_URL=",
		"GPUSCHED_LOG_FORMAT=", "GPUSCHED_SESSION_KEY=", "HOME=" + home,
		"GPUSCHED_SESSION_ORIGIN=" + origin, "GPUSCHED_SESSION_LISTEN=127.0.0.1:" + strconv.Itoa(sessPort)},
		"serve", "--dev", "--listen", "127.0.0.1:"+strconv.Itoa(port), "--sim-nodes", "1x1:H100-80GB"), URL: url}
	if dev.WaitReady(60*time.Second) < 0 {
		t.Fatal("dev server not ready")
	}
	dbURL, ok := pgembed.Running(filepath.Join(data, "postgres"), "gpusched")
	if !ok {
		t.Fatal("the dev server's embedded PostgreSQL is not found")
	}
	t.Cleanup(func() { dev.Signal(syscall.SIGINT, 30*time.Second) }) // stops the notebook and the embedded PostgreSQL
	token := adminToken(t, dbURL)
	pool := poolFor(t, dbURL)
	killJobProcesses(t, filepath.Join(data, "sim-nodes"))
	if waitNodeUp(t, pool, "sim-node-1", 20*time.Second) < 0 {
		t.Fatal("simulated node not up")
	}
	ctx := context.Background()
	holder, err := submit(ctx, url, token, "sleep 600", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, d := waitState(t, url, token, holder.ID, 20*time.Second, "running"); d < 0 {
		t.Fatal("the job holding the GPU is not running")
	}

	tab := browsertest.New(t, 240*time.Second)
	if err := chromedp.Do(tab,
		chromedp.Navigate(url+"/login"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "newcomer@example.com"),
		chromedp.Click(`form[action="/auth/dev"] button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=start-notebook] button[type=submit]`),
	); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	browsertest.Screenshot(t, tab, "walk-overview")
	if err := chromedp.Do(tab,
		chromedp.Click(`[data-testid=start-notebook] button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=session-row][data-state=queued]`),
	); err != nil {
		t.Fatalf("start a notebook: %v", err)
	}
	// The page follows the scheduler's pass without a reload.
	waitJS(t, tab, "the waiting session to say where it is in the queue",
		`document.querySelector('[data-testid=session-row] [data-field=where]').textContent.includes('number 1 in the queue')`, 30*time.Second)
	browsertest.Screenshot(t, tab, "walk-session-waiting")
	id, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=session-row]').dataset.sessionId`))
	if err != nil {
		t.Fatal(err)
	}
	sessionID, _ := strconv.ParseInt(id, 10, 64)

	// The GPU frees: the page shows Open without a reload.
	if _, err := api(ctx, http.MethodDelete, fmt.Sprintf("%s/api/v1/queue/%d", url, holder.ID), token, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible(`[data-testid=session-open]`)); err != nil {
		t.Fatalf("Open never appeared on the Sessions page: %v", err)
	}
	browsertest.Screenshot(t, tab, "walk-session-ready")
	next, err := submit(ctx, url, token, "sleep 600", 1)
	if err != nil {
		t.Fatal(err)
	}

	href, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=session-open]').href`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(href), chromedp.WaitVisible(`#notebook_list`)); err != nil {
		t.Fatalf("open the notebook server (%s): %v", href, err)
	}
	loc, _ := chromedp.Run(tab, chromedp.Evaluate[string](`location.origin`))
	if loc != origin {
		t.Errorf("Jupyter opened at %s, want the session origin %s", loc, origin)
	}
	browsertest.Screenshot(t, tab, "walk-jupyter-tree")
	created, err := chromedp.Run(tab, chromedp.Evaluate[string](`(async () => {
		const x = document.cookie.split('; ').find(c => c.startsWith('_xsrf=')).slice(6);
		const r = await fetch('api/contents', {method: 'POST', headers: {'X-XSRFToken': x, 'Content-Type': 'application/json'},
			body: JSON.stringify({type: 'notebook'})});
		const text = await r.text();
		return r.status + ' ' + (r.status === 201 ? JSON.parse(text).path : text);
	})()`, chromedp.EvalAwaitPromise))
	name, ok := strings.CutPrefix(created, "201 ")
	if err != nil || !ok {
		t.Fatalf("create a notebook: %q (%v)", created, err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(loc+fmt.Sprintf("/s/%d/notebooks/%s", sessionID, name))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, tab, "the kernel to be ready", `typeof Jupyter !== 'undefined' && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()`, 60*time.Second)
	if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`
		Jupyter.notebook.get_cell(0).set_text("import os; print('gpus=' + os.environ['CUDA_VISIBLE_DEVICES'])");
		Jupyter.notebook.execute_cell_and_select_below(); true`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, tab, "the cell's output", `Array.from(document.querySelectorAll('.output_area pre')).some(e => e.textContent.includes('gpus=0'))`, 60*time.Second)
	browsertest.Screenshot(t, tab, "walk-notebook-cell")
	if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`Jupyter.notebook.save_notebook(); true`)); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(home, name)
	if poll(30*time.Second, 100*time.Millisecond, func() bool {
		b, err := os.ReadFile(saved)
		return err == nil && strings.Contains(string(b), "gpus=0")
	}) < 0 {
		t.Fatalf("the notebook was not saved with its output in the home directory (%s)", saved)
	}

	// Left idle: warned, then stopped; the waiting job gets the GPU.
	if err := chromedp.Do(tab, chromedp.Navigate(url+"/sessions")); err != nil {
		t.Fatal(err)
	}
	setIdlePolicy(t, url, token, "2s", "4s")
	if _, d := waitState(t, url, token, sessionID, 90*time.Second, "canceled"); d < 0 {
		t.Fatal("the idle notebook was not stopped")
	}
	if _, d := waitState(t, url, token, next.ID, 30*time.Second, "running"); d < 0 {
		t.Fatal("the job waiting behind the notebook did not get its GPU")
	}
	if _, err := os.Stat(saved); err != nil {
		t.Errorf("the notebook is gone after the stop: %v", err)
	}
	if err := chromedp.Do(tab, chromedp.WaitVisible(`[data-testid=ended-sessions] [data-session-id="`+id+`"]`)); err != nil {
		t.Errorf("the Sessions page does not show the stopped session: %v", err)
	}
	ended, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=ended-sessions] [data-session-id="`+id+`"] [data-field=where]').textContent`))
	if !strings.Contains(ended, "reclaimed: idle for") || !strings.Contains(ended, "files kept in") {
		t.Errorf("the stopped session should say why and where its files are: %q", ended)
	}
	browsertest.Screenshot(t, tab, "walk-session-stopped")
	if err := chromedp.Do(tab, chromedp.Navigate(url+"/notifications"), chromedp.WaitVisible(`[data-testid=notifications-page]`)); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"session.ready", "session.idle", "session.stopped"} {
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('[data-testid=notification][data-event=%q]').length`, ev)))
		if err != nil || n != 1 {
			t.Errorf("%s on the notifications page: %d (%v), want 1", ev, n, err)
		}
	}
	text, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid=notification-list]').innerText`))
	t.Logf("notifications:\n%s", text)
	browsertest.Screenshot(t, tab, "walk-notifications")
}

// waitJS polls expr in tab until it is true, up to limit.
func waitJS(t *testing.T, tab context.Context, what, expr string, limit time.Duration) {
	t.Helper()
	if poll(limit, 200*time.Millisecond, func() bool {
		ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](expr))
		return err == nil && ok
	}) < 0 {
		browsertest.Screenshot(t, tab, "walk-failed")
		t.Fatalf("waited %s for %s", limit, what)
	}
}

// setIdlePolicy sets the idle policy to release GPUs idle for after, with
// grace between the warning and the stop, keeping the rest of the policy.
func setIdlePolicy(t *testing.T, url, token, after, grace string) {
	t.Helper()
	var cur map[string]any
	if _, err := api(context.Background(), http.MethodGet, url+"/api/v1/orchestrator/policies", token, nil, &cur); err != nil {
		t.Fatal(err)
	}
	cur["idle_action"], cur["idle_after"], cur["idle_grace"] = "release", after, grace
	if _, err := api(context.Background(), http.MethodPut, url+"/api/v1/orchestrator/policies", token, cur, nil); err != nil {
		t.Fatal(err)
	}
}
