package web_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The idle policy gives a Jupyter session's GPUs back once Jupyter itself
// has seen no activity (and its GPUs none) for idle_after plus the grace:
// the owner is told it is ready, then warned (session.idle), the session
// ends "reclaimed: idle for …" (session.stopped, saying where its files are),
// and the notebook saved through the proxy is still in its working
// directory.
func TestJupyterSessionIdleStops(t *testing.T) {
	t.Parallel()
	jupyterOrSkip(t)
	s := testserver.New(t) // the idle policy runs every 500 ms there
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	startSessionNode(t, s, "idle-nb", "1x2:H100-80GB")
	tok, owner := sessionMember(t, s)
	dir := sessionWorkdir(t)
	sess := startSession(t, s, tok, fmt.Sprintf(`{"kind":"jupyter","gpu_count":1,"workdir":%q}`, dir))

	// Save a notebook through the proxy, with Jupyter's XSRF token.
	page := s.Login(t, owner.Email)
	base := fmt.Sprintf("/s/%d/", sess.ID)
	if st, _ := fetchPage(t, s, page, base+"tree"); st != http.StatusOK {
		t.Fatalf("tree: %d", st)
	}
	var xsrf string
	for _, c := range page.Jar.Cookies(mustURL(t, s.URL+base)) {
		if c.Name == "_xsrf" {
			xsrf = c.Value
		}
	}
	req, _ := http.NewRequest("PUT", s.URL+base+"api/contents/kept.ipynb", strings.NewReader(
		`{"type":"notebook","content":{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}}`))
	req.Header.Set("X-XSRFToken", xsrf)
	req.Header.Set("Content-Type", "application/json")
	resp, err := page.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("save a notebook through the proxy: %d", resp.StatusCode)
	}

	putIdlePolicy(t, s, adminTok, map[string]any{"idle_action": "release", "idle_after": "2s", "idle_grace": "2s"})
	var j *models.Job
	if !eventually(60*time.Second, func() bool {
		j, err = models.GetJob(t.Context(), s.DB.Bun, sess.ID)
		return err == nil && j.State == models.JobCanceled
	}) {
		t.Fatalf("the idle session was not stopped: %+v", j)
	}
	if !strings.HasPrefix(j.StopReason, "reclaimed: idle for ") {
		t.Errorf("stop reason %q", j.StopReason)
	}
	for _, ev := range []string{models.EventSessionReady, models.EventSessionIdle, models.EventSessionStopped} {
		var told int
		if err := s.DB.Bun.NewRaw(`SELECT count(*) FROM notifications WHERE user_id = ? AND event = ? AND channel_type = 'in_app'`, owner.ID, ev).
			Scan(t.Context(), &told); err != nil || told != 1 {
			t.Errorf("%s told %d times (%v), want once", ev, told, err)
		}
	}
	var text string
	if err := s.DB.Bun.NewRaw(`SELECT payload->>'text' FROM notifications WHERE user_id = ? AND event = ?`, owner.ID, models.EventSessionStopped).
		Scan(t.Context(), &text); err != nil || !strings.Contains(text, dir) {
		t.Errorf("session.stopped does not say where the files are: %q (%v)", text, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kept.ipynb")); err != nil {
		t.Errorf("the notebook is gone after the idle stop: %v", err)
	}
	_, b := s.Do(t, "GET", fmt.Sprintf("/api/v1/sessions/%d", sess.ID), tok, "")
	if !strings.Contains(string(b), `"state":"canceled"`) || !strings.Contains(string(b), dir) {
		t.Errorf("the stopped session does not say where its files are: %s", b)
	}
}
