package web_test

import (
	"fmt"
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

// startWebSession copies the tiny web server of testdata into a working
// directory its user may read and starts it as a "web" session.
func startWebSession(t testing.TB, s *testserver.Server, tok string) (int64, string) {
	t.Helper()
	dir := sessionWorkdir(t)
	src, err := os.ReadFile(filepath.Join("testdata", "websession.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "websession.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	sess := startSession(t, s, tok, fmt.Sprintf(`{"kind":"web","command":"exec python3 websession.py","workdir":%q}`, dir))
	return sess.ID, dir
}

// The generic path: a "web" session's own server, reached through the
// proxy with its prefix removed, sees its GPUs, none of the dashboard's
// cookies, no Authorization; its WebSocket echoes through the proxy.
func TestWebSessionThroughProxy(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{SessionOrigin: true})
	_, _ = s.UserToken(t, models.RoleAdmin)
	startSessionNode(t, s, "web-1", "1x2:H100-80GB")
	tok, owner := sessionMember(t, s)
	id, _ := startWebSession(t, s, tok)
	gpus := gpusOf(t, s, id)

	page := s.Login(t, owner.Email)
	st, body, at := fetchSession(t, s, page, fmt.Sprintf("/s/%d/hello?x=1", id))
	if st != 200 || !strings.Contains(body, "path=/hello?x=1 gpus="+gpus) || !strings.HasPrefix(at, s.SessionURL+"/") {
		t.Fatalf("through the proxy: %d %q from %s, want the session origin %s", st, body, at, s.SessionURL)
	}
	if strings.Contains(body, "gpusched_") || !strings.Contains(body, "auth=") || strings.Contains(body, "auth=B") {
		t.Errorf("the dashboard's cookies or credentials reached the session: %q", body)
	}

	tab := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(tab,
		chromedp.Navigate(fmt.Sprintf("%s/s/%d/", s.URL, id)),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, owner.Email),
		chromedp.Click(`form[action="/auth/dev"] button[type=submit]`),
		chromedp.WaitVisible(`body`),
	); err != nil {
		t.Fatalf("sign in and open the web session: %v", err)
	}
	poll(t, tab, "the session's page", `document.body.innerText.includes('web session: path=/ ')`, 20*time.Second)
	if origin, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.origin`)); err != nil || origin != s.SessionURL {
		t.Errorf("the session's page is on %q (%v), want the session origin %q", origin, err, s.SessionURL)
	}
	echo, err := chromedp.Run(tab, chromedp.Evaluate[string](`new Promise((ok, fail) => {
		const ws = new WebSocket(location.href.replace(/^http/, 'ws') + 'ws');
		ws.onopen = () => ws.send('hello through the proxy');
		ws.onmessage = e => { ok(e.data); ws.close(); };
		ws.onerror = () => {}; ws.onclose = e => ok('websocket closed ' + e.code + ' ' + e.reason);
	})`, chromedp.EvalAwaitPromise))
	if err != nil || echo != "echo: hello through the proxy" {
		_, logs := s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d/logs", id), tok, "")
		t.Logf("the server's output: %s", logs)
		t.Fatalf("websocket through the proxy: %q %v", echo, err)
	}
}

// A node agent restarted while a session runs finds it again, serves it
// on its new listener and tells the control plane where: the session
// keeps working through the proxy.
func TestWebSessionSurvivesAgentRestart(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{SessionOrigin: true})
	_, _ = s.UserToken(t, models.RoleAdmin)
	tok, _ := s.NodeToken(t, "restart-1")
	dir := filepath.Join(sessionWorkdir(t), "state")
	stop := runSessionAgent(t, s, "restart-1", "1x2:H100-80GB", tok, dir)
	utok, owner := sessionMember(t, s)
	id, _ := startWebSession(t, s, utok)
	page := s.Login(t, owner.Email)
	if st, body, _ := fetchSession(t, s, page, fmt.Sprintf("/s/%d/before", id)); st != 200 || !strings.Contains(body, "path=/before") {
		t.Fatalf("before the restart: %d %q", st, body)
	}
	stop()
	runSessionAgent(t, s, "restart-1", "1x2:H100-80GB", tok, dir)
	waitFor(t, "the session through the restarted agent", func() bool {
		st, body, _ := fetchSession(t, s, page, fmt.Sprintf("/s/%d/after", id))
		return st == 200 && strings.Contains(body, "path=/after")
	})
}
