package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// originRow is one route of the session origin's table: the path of the
// member's valid request on a fresh session of theirs, and what each
// caller gets there with what it can hold (see originCaller).
type originRow struct {
	path func(id int64) string
	want [4]int
}

// sessionOriginRows covers every route of the session origin, keyed
// "METHOD PATH" as echo lists them ("ANY PATH" for the proxy's methods).
// A route without a row fails the suite.
func sessionOriginRows() map[string]originRow {
	return map[string]originRow{
		// The handoff: a dashboard-minted one for the caller and this
		// session spends; none (anonymous), or another member's for their
		// own session, is a 404 that names nothing.
		"GET /s/:id/_auth": {path: func(id int64) string { return fmt.Sprintf("/s/%d/_auth?next=/s/%d/tree", id, id) }, want: [4]int{404, 303, 404, 303}},
		// The proxy: without the session origin's cookie, to the dashboard
		// (which signs in); another member, even with a cookie that names
		// them for this session, gets the 404 of a session that is not
		// there; the owner and admins reach it (not ready here: no agent).
		"GET /s/:id":   {path: func(id int64) string { return fmt.Sprintf("/s/%d", id) }, want: [4]int{303, 303, 404, 303}},
		"ANY /s/:id/*": {path: func(id int64) string { return fmt.Sprintf("/s/%d/api/status", id) }, want: [4]int{303, 503, 404, 503}},
	}
}

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

// The hostile-member suite on the session origin, route by route of its
// table: each caller gets what its row says, another member learns
// nothing of the session (not its name, command or owner), a browser
// without the cookie goes to the dashboard's sign-in; control characters
// in the query or the path and bodies over the proxy's limit are refused
// with a 4xx and write nothing (a handoff presented with them stays
// unspent); malformed handoffs, ids and next paths are 4xx or stay on the
// session's own path, never a 5xx.
func TestHostileMemberOnSessionOrigin(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{SessionOrigin: true})
	o := &originFixture{authzFixture: newAuthzFixture(t, s),
		client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	rows := sessionOriginRows()
	var keys []string
	seen := map[string]bool{}
	for _, r := range s.Web.SessionOrigin().(*echo.Echo).Routes() {
		key := r.Method + " " + r.Path
		if _, ok := rows[key]; !ok {
			key = "ANY " + r.Path
		}
		if r.Method == echoRouteNotFound || seen[key] {
			continue
		}
		if _, ok := rows[key]; !ok {
			t.Errorf("session origin route %s %s has no row in sessionOriginRows", r.Method, r.Path)
			continue
		}
		seen[key] = true
		keys = append(keys, key)
	}
	sort.Strings(keys)
	if len(keys) != len(rows) {
		t.Errorf("routes %v, rows %d: a row names no route", keys, len(rows))
	}
	for _, key := range keys {
		row := rows[key]
		t.Run(key, func(t *testing.T) {
			o.t = t
			var got [4]int
			for who := range 4 {
				id := o.session(member)
				query, cookie := o.originCaller(who, key, id)
				p := row.path(id) + query
				st, loc, _, body := o.get(p, cookie)
				got[who] = st
				switch who {
				case anonymous:
					if st == http.StatusSeeOther {
						if !strings.HasPrefix(loc, s.URL+fmt.Sprintf("/s/%d", id)) {
							t.Errorf("without a cookie: to %q, want the dashboard's session path", loc)
						} else if st, to := o.dashboard(loc); st != http.StatusSeeOther || !strings.HasPrefix(to, "/login?next=") {
							t.Errorf("the dashboard without a sign-in: %d to %q, want 303 to the sign-in page", st, to)
						}
					}
				case other:
					for _, secret := range []string{"secret-notebook-name", "secret-flag", "member@example.com"} {
						if strings.Contains(body, secret) || strings.Contains(loc, secret) {
							t.Errorf("another member learns %q", secret)
						}
					}
				}
			}
			if d := cmp.Diff(row.want, got); d != "" {
				t.Errorf("statuses as [anonymous member other admin] (-want +got):\n%s", d)
			}

			// Hostile requests as the member, with what the member holds.
			id := o.session(member)
			query, cookie := o.originCaller(member, key, id)
			valid := row.path(id) + query
			before := sweepFingerprint(t, s)
			var refused []hostileReq
			for _, c := range hostileControls {
				refused = append(refused, hostileReq{name: fmt.Sprintf("query %q", c), method: http.MethodGet, path: valid + "&q=" + url.QueryEscape(c)})
			}
			for _, c := range []string{"a\rb", "\x1b[2J"} {
				p := strings.Replace(valid, fmt.Sprint(id), url.PathEscape(c), 1)
				refused = append(refused, hostileReq{name: fmt.Sprintf("path %q", c), method: http.MethodGet, path: p})
			}
			refused = append(refused, hostileReq{name: "huge declared body", method: http.MethodGet, path: valid, declared: web.SessionBodyLimit + 1})
			if strings.HasPrefix(key, "ANY ") {
				refused = append(refused, hostileReq{name: "huge declared POST", method: http.MethodPost, path: valid, declared: web.SessionBodyLimit + 1})
			}
			for _, r := range refused {
				if !strings.Contains(r.path, "?") {
					r.path = strings.Replace(r.path, "&", "?", 1)
				}
				if st, _, _, body := o.send(r.method, r.path, cookie, r.declared); st < 400 || st >= 500 {
					t.Errorf("%s: %d, want a refusal: %.200s", r.name, st, body)
				}
			}
			if after := sweepFingerprint(t, s); after != before {
				t.Errorf("refused requests wrote to the database:\nbefore %s\nafter  %s", before, after)
			}
			if st, _, _, _ := o.get(valid, cookie); st != row.want[member] {
				t.Errorf("the member's valid request after the refused ones: %d, want %d (a refused one spent it?)", st, row.want[member])
			}
		})
	}

	// Malformed handoffs, ids and next paths.
	o.t = t
	id, second := o.session(member), o.session(member)
	root := fmt.Sprintf("/s/%d/", id)
	for name, p := range map[string]string{
		"no token": root + "_auth", "empty token": root + "_auth?t=", "short token": root + "_auth?t=x",
		"unknown token":   root + "_auth?t=" + strings.Repeat("A", 43),
		"not base64":      root + "_auth?t=" + strings.Repeat("!", 43),
		"huge token":      root + "_auth?t=" + strings.Repeat("A", 8000),
		"another's":       root + "_auth?t=" + o.mint(member, second),
		"id zero":         "/s/0/_auth?t=x",
		"negative id":     "/s/-1/_auth?t=x",
		"overflowing id":  "/s/99999999999999999999/_auth?t=x",
		"id not a number": "/s/abc/_auth?t=x",
		"proxy id zero":   "/s/0/",
		"proxy id huge":   "/s/99999999999999999999/x",
		"proxy id word":   "/s/abc/x",
	} {
		if st, _, set, _ := o.get(p, ""); st < 400 || st >= 500 || set != "" {
			if !(strings.HasPrefix(name, "proxy") && st == http.StatusSeeOther) || set != "" {
				t.Errorf("%s: %d (cookie %q), want a 4xx and no cookie", name, st, set)
			}
		}
	}
	for name, next := range map[string]string{
		"absolute": "https://evil.example/x", "scheme-relative": "//evil.example/x", "another session": fmt.Sprintf("/s/%d/", second),
		"the handoff again": root + "_auth?t=x", "dot segments": root + "../../login", "dot segments to another": root + fmt.Sprintf("../%d/", second),
		"backslash host": `/\evil.example`, "empty": "",
	} {
		st, loc, _, _ := o.get(root+"_auth?t="+o.mint(member, id)+"&next="+url.QueryEscape(next), "")
		if st != http.StatusSeeOther || !strings.HasPrefix(loc, root) || strings.HasPrefix(loc, root+"_auth") || strings.Contains(loc, "..") {
			t.Errorf("next %s (%q): %d to %q, want 303 within %s", name, next, st, loc, root)
		}
	}
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
