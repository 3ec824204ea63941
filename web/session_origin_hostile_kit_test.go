package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// originFixture is the authorization fixture with a session origin.
type originFixture struct {
	*authzFixture
	client *http.Client
}

// originCaller is what who holds for member's session id at route key: a
// dashboard-minted handoff (as the query's t) for the handoff route, else
// the session origin's cookie. Anonymous holds nothing; the other member a
// handoff of its own session, and a cookie naming them for this one (as if
// they had stolen a handoff: the dashboard never mints one for them here).
func (o *originFixture) originCaller(who int, key string, id int64) (query, cookie string) {
	t := o.t
	t.Helper()
	if who == anonymous {
		return "", ""
	}
	if key == "GET /s/:id/_auth" {
		if who == other {
			theirs := o.session(other)
			return "&t=" + o.mint(other, theirs), ""
		}
		return "&t=" + o.mint(who, id), ""
	}
	var tok string
	if who == other {
		var browser int64
		if err := o.s.DB.Bun.NewRaw("SELECT max(id) FROM sessions WHERE user_id = ?", o.ids[other]).Scan(t.Context(), &browser); err != nil {
			t.Fatal(err)
		}
		var err error
		if tok, err = o.s.Handlers.Handoff.Mint(t.Context(), o.s.DB.Bun, handlers.Bearer{UserID: o.ids[other], BrowserSession: browser}, id, time.Now()); err != nil {
			t.Fatal(err)
		}
	} else {
		tok = o.mint(who, id)
	}
	st, _, set, _ := o.get(fmt.Sprintf("/s/%d/_auth?t=%s", id, tok), "")
	cookie, _, _ = strings.Cut(set, ";")
	if st != http.StatusSeeOther || cookie == "" {
		t.Fatalf("handoff of %d: %d, cookie %q", who, st, set)
	}
	return "", cookie
}

// mint is the handoff the dashboard gives who (signed in) for session id.
func (o *originFixture) mint(who int, id int64) string {
	o.t.Helper()
	req, err := http.NewRequestWithContext(o.t.Context(), http.MethodGet, fmt.Sprintf("%s/s/%d/", o.s.URL, id), nil)
	if err != nil {
		o.t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: web.SessionCookie, Value: o.sessions[who]})
	resp, err := o.client.Do(req)
	if err != nil {
		o.t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusSeeOther || loc.Query().Get("t") == "" {
		o.t.Fatalf("the dashboard's handoff for %d on session %d: %d to %q", who, id, resp.StatusCode, resp.Header.Get("Location"))
	}
	return loc.Query().Get("t")
}

// session makes a fresh session of who's (through the API) and returns its id.
func (o *originFixture) session(who int) int64 {
	o.t.Helper()
	st, b := o.s.Do(o.t, "POST", "/api/v1/sessions", o.tokens[who], `{"kind":"web","name":"secret-notebook-name","command":"serve --secret-flag"}`)
	if st != http.StatusCreated {
		o.t.Fatalf("session of %d: %d %s", who, st, b)
	}
	var out struct {
		ID int64 `json:"id"`
	}
	mustJSON(o.t, b, &out)
	// Let the scheduler place it and dispatch its start before the caller
	// fingerprints the database: that write is the scheduler's, not the
	// requests'.
	if !eventually(30*time.Second, func() bool {
		var sent int
		err := o.s.DB.Pool.QueryRow(o.t.Context(), `SELECT count(*) FROM node_commands WHERE job_id = $1 AND kind = 'start'`, out.ID).Scan(&sent)
		return err == nil && sent > 0
	}) {
		o.t.Fatalf("session %d was never placed and sent to its node", out.ID)
	}
	return out.ID
}

// send sends method p to the session origin (a body of declared zero bytes, if any) with cookie and returns the
// status, Location, Set-Cookie and body.
func (o *originFixture) send(method, p, cookie string, declared int64) (int, string, string, string) {
	o.t.Helper()
	var body io.Reader
	if declared > 0 {
		body = io.LimitReader(zeros{}, declared)
	}
	req, err := http.NewRequestWithContext(o.t.Context(), method, o.s.SessionURL+p, body)
	if err != nil {
		o.t.Fatalf("%s %q: %v", method, p, err)
	}
	if declared > 0 {
		req.ContentLength = declared
	}
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		o.t.Fatalf("%s %q: %v", method, p, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Set-Cookie"), string(b)
}

// get GETs p from the session origin with cookie.
func (o *originFixture) get(p, cookie string) (int, string, string, string) {
	return o.send(http.MethodGet, p, cookie, 0)
}

// newOriginFixture starts a server with a session origin and the
// authorization fixture's callers.
func newOriginFixture(t *testing.T) *originFixture {
	t.Helper()
	s := testserver.NewWith(t, testserver.Options{SessionOrigin: true})
	return &originFixture{authzFixture: newAuthzFixture(t, s),
		client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// dashboard GETs u (a dashboard URL) without any cookie and returns the
// status and Location.
func (o *originFixture) dashboard(u string) (int, string) {
	o.t.Helper()
	resp, err := o.client.Get(u)
	if err != nil {
		o.t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}
