package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

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

// The hostile-member suite on the session origin, route by route of its
// table: each caller gets what its row says, another member learns
// nothing of the session (not its name, command or owner), a browser
// without the cookie goes to the dashboard's sign-in; control characters
// in the query or the path and bodies over the proxy's limit are refused
// with a 4xx and write nothing (a handoff presented with them stays
// unspent). Malformed input: TestSessionOriginMalformedInput.
func TestHostileMemberOnSessionOrigin(t *testing.T) {
	t.Parallel()
	o := newOriginFixture(t)
	s := o.s
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
}
