package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// noFollow is a client that shows each redirect instead of following it.
func noFollow(jar http.CookieJar) *http.Client {
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// get GETs u with c (cookie: an extra Cookie header) and returns the status,
// Location and Set-Cookie of the answer.
func get(t *testing.T, c *http.Client, u, cookie string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Set-Cookie")
}

// The handoff from the dashboard to the session origin: single use, bound
// to its session, never given for another member's session; each origin
// takes only its own cookie.
func TestSessionOriginHandoff(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{SessionOrigin: true})
	_, _ = s.UserToken(t, models.RoleAdmin)
	startSessionNode(t, s, "handoff-1", "1x2:H100-80GB")
	tok, owner := sessionMember(t, s)
	id, _ := startWebSession(t, s, tok)
	page := s.Login(t, owner.Email)
	path := fmt.Sprintf("/s/%d/", id)

	st, loc, _ := get(t, page, s.URL+path+"x?y=1", "")
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, s.SessionURL+path+"_auth?") {
		t.Fatalf("the dashboard's %s: %d to %q, want 303 to the session origin's handoff", path, st, loc)
	}
	bare := noFollow(nil)
	st, next, setCookie := get(t, bare, loc, "")
	if st != http.StatusSeeOther || next != path+"x?y=1" {
		t.Errorf("handoff: %d to %q, want 303 to %sx?y=1", st, next, path)
	}
	for _, want := range []string{handlers.SessionOriginCookie + "=", "Path=" + path, "HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("the session origin's cookie %q lacks %q", setCookie, want)
		}
	}
	cookie, _, _ := strings.Cut(setCookie, ";")
	if st, _, _ := get(t, bare, loc, ""); st != http.StatusNotFound {
		t.Errorf("a handoff used twice: %d, want 404", st)
	}
	if st, _, _ := get(t, bare, s.SessionURL+path+"hello", cookie); st != http.StatusOK {
		t.Errorf("the session origin with its cookie: %d, want 200", st)
	}

	_, loc, _ = get(t, page, s.URL+path, "")
	other := fmt.Sprintf("/s/%d/", id+1000)
	cases := []struct {
		name, url, cookie string
		client            *http.Client
		status            int
		to                string
	}{
		{"a handoff on another session's path", s.SessionURL + other + "_auth?" + strings.SplitN(loc, "?", 2)[1], "", bare, http.StatusNotFound, ""},
		{"another member at the dashboard", s.URL + path, "", s.Login(t, "other-"+owner.Email), http.StatusNotFound, ""},
		{"the session origin without its cookie", s.SessionURL + path + "a?b=2", "", bare, http.StatusSeeOther, s.URL + path + "a?b=2"},
		{"the session origin with the dashboard's cookie only", s.SessionURL + path, "", page, http.StatusSeeOther, s.URL + path},
		{"the session origin's cookie on another session", s.SessionURL + other, cookie, bare, http.StatusSeeOther, s.URL + other},
		{"the dashboard with the session origin's cookie only", s.URL + path, cookie, bare, http.StatusSeeOther, "/login?next=" + strings.ReplaceAll(path, "/", "%2F")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, to, _ := get(t, c.client, c.url, c.cookie)
			if st != c.status || to != c.to {
				t.Errorf("%d to %q, want %d to %q", st, to, c.status, c.to)
			}
		})
	}

	// A handoff naming another member (as if stolen) lets them in to nothing.
	stranger, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "other-"+owner.Email)
	if err != nil {
		t.Fatal(err)
	}
	var browser int64
	if err := s.DB.Bun.NewRaw("SELECT max(id) FROM sessions WHERE user_id = ?", stranger.ID).Scan(t.Context(), &browser); err != nil {
		t.Fatal(err)
	}
	b := handlers.Bearer{UserID: stranger.ID, BrowserSession: browser}
	handoff, err := s.Handlers.Handoff.Mint(t.Context(), s.DB.Bun, b, id, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, _, sc := get(t, bare, s.SessionURL+path+"_auth?t="+handoff, "")
	strangerCookie, _, _ := strings.Cut(sc, ";")
	if st, _, _ := get(t, bare, s.SessionURL+path, strangerCookie); st != http.StatusNotFound {
		t.Errorf("another member on the session origin: %d, want 404", st)
	}

	// Signing out of the dashboard ends the session origin's cookie too.
	resp, err := page.PostForm(s.URL+"/auth/logout", url.Values{"_csrf": {s.CSRF(t, page)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if st, to, _ := get(t, bare, s.SessionURL+path, cookie); st != http.StatusSeeOther || to != s.URL+path {
		t.Errorf("the session origin's cookie after signing out: %d to %q, want 303 to the dashboard", st, to)
	}
}

// Script in a page of a session's server runs on the session origin: it
// cannot read the dashboard's pages (there is none on its origin, and the
// dashboard's origin answers no cross-origin read), and the server never
// sees the dashboard's cookies nor the session origin's.
func TestSessionOriginIsolatesDashboard(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{SessionOrigin: true})
	_, _ = s.UserToken(t, models.RoleAdmin)
	startSessionNode(t, s, "isolate-1", "1x2:H100-80GB")
	tok, owner := sessionMember(t, s)
	id, _ := startWebSession(t, s, tok)

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
	reads := map[string]string{
		"the queue on its own origin": `fetch('/queue', {credentials: 'include'}).then(r => r.text().then(b => r.status + ' ' + b))`,
		"the queue on the dashboard":  fmt.Sprintf(`fetch(%q, {credentials: 'include'}).then(r => r.text().then(b => r.status + ' ' + b), e => 'blocked')`, s.URL+"/queue"),
		"the settings, no CORS":       fmt.Sprintf(`fetch(%q, {credentials: 'include', mode: 'no-cors'}).then(r => r.type + ' ' + r.status)`, s.URL+"/settings"),
		"what the server sees":        `fetch('hello', {credentials: 'include'}).then(r => r.text())`,
	}
	got := map[string]string{}
	for name, js := range reads {
		v, err := chromedp.Run(tab, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got[name] = v
	}
	if v := got["the queue on its own origin"]; !strings.HasPrefix(v, "404 ") || strings.Contains(v, "_csrf") || strings.Contains(v, owner.Email) {
		t.Errorf("the session origin's /queue: %q, want a bare 404", v)
	}
	if v := got["the queue on the dashboard"]; v != "blocked" {
		t.Errorf("the dashboard's /queue read from a session's page: %.200q, want blocked", v)
	}
	if v := got["the settings, no CORS"]; v != "opaque 0" {
		t.Errorf("the dashboard's /settings without CORS: %q, want an opaque answer", v)
	}
	if v := got["what the server sees"]; !strings.Contains(v, "path=/hello") || !strings.Contains(v, " cookie= auth=") {
		t.Errorf("the session's server saw %q, want none of the dashboard's or the origin's cookies", v)
	}
}
