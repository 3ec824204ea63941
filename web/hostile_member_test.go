package web_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/netguard"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// hostileRoute is one route of the table with the member's valid request.
type hostileRoute struct{ key, method, template, path, body string }

// The hostile-member suite: every route of the route table (so a new route
// is covered as soon as it is added, and must have an authorization row),
// called with a member's credentials and each class of hostile payload.
// Control characters in queries, path parameters, JSON fields and form
// fields, huge bodies (declared and streamed) and zoned or private webhook
// addresses are refused with a 4xx and write nothing; markup, formulas and
// addresses as plain text never cause a 5xx, and come out escaped (pages),
// as text (CSV export) or parseable (calendar); nothing secret and no raw
// control character reaches the server's log.
func TestHostileMember(t *testing.T) {
	t.Parallel()
	logs := &testserver.Logs{}
	s, _ := startSSOWith(t, testserver.Options{RiverUI: true, Logs: logs, NotifyTargets: &netguard.Policy{}}, func(h *handlers.Handlers) {
		h.Config.HoldLimit = 1000
		h.Config.Bookings.MaxLive = 1000
	})
	f := newAuthzFixture(t, s)
	if st, b := s.Do(t, "POST", "/api/v1/orchestrator/stop", f.tokens[admin], ""); st != http.StatusOK {
		t.Fatalf("stop the scheduler (nothing moves while the suite counts rows): %d %s", st, b)
	}
	secret := "hostile-channel-secret-value"
	if st, b := s.Do(t, "POST", "/api/v1/notifications/channels", f.tokens[member], `{"type":"webhook","url":"https://hooks.example.com/h","secret":"`+secret+`"}`); st != http.StatusCreated {
		t.Fatalf("channel: %d %s", st, b)
	}

	// The member's valid request for every route (making the objects it acts on).
	rows := authzRows()
	var routes []hostileRoute
	seen := map[string]bool{}
	for _, r := range s.Web.Echo.Routes() {
		key := r.Method + " " + r.Path
		if _, ok := rows[key]; !ok {
			key = "ANY " + r.Path
		}
		row, ok := rows[key]
		if r.Method == echoRouteNotFound || seen[key] {
			continue
		}
		if !ok {
			t.Errorf("route %s %s has no row in authzRows (the hostile suite needs its valid request)", r.Method, r.Path)
			continue
		}
		seen[key] = true
		method := r.Method
		if strings.HasPrefix(key, "ANY ") {
			method = http.MethodGet
		}
		p, body := r.Path, ""
		if row.req != nil {
			f.t = t
			if p, body = row.req(f); p == "" {
				p = r.Path
			}
		}
		routes = append(routes, hostileRoute{key, method, r.Path, p, body})
	}
	sort.Slice(routes, func(i, j int) bool { return routes[i].key < routes[j].key })

	// Refused: nothing may be written.
	before := sweepFingerprint(t, s)
	refused := 0
	for _, r := range routes {
		for _, req := range refusedRequests(r) {
			refused++
			req.method = r.method
			if st, out := f.send(req); st < 400 || st >= 500 {
				t.Errorf("%s (%s): %d, want a refusal: %.200s", r.key, req.name, st, out)
			}
		}
	}
	if after := sweepFingerprint(t, s); after != before {
		t.Errorf("refused requests wrote to the database:\nbefore %s\nafter  %s", before, after)
	}

	// Accepted or not, never a fault of ours.
	accepted := 0
	for _, r := range routes {
		if r.method == http.MethodGet || r.method == http.MethodHead {
			continue
		}
		for _, req := range eachString(r.body, isAPI(r.path), func(string) []string {
			return append(append(append([]string{}, hostileMarkup...), hostileFormulas...), hostileURLs[0], hostileURLs[5])
		}) {
			accepted++
			req.method, req.path = r.method, r.path
			if st, out := f.send(req); st >= 500 {
				t.Errorf("%s (%s): %d %.200s", r.key, req.name, st, out)
			}
			if endsCallersSessions[r.key] {
				f.relogin()
			}
		}
	}
	f.relogin()
	feed := checkHostileOutputs(t, s, f)

	out := logs.String()
	for name, leak := range map[string]string{"the member's token": f.tokens[member], "the member's session": f.sessions[member],
		"the channel secret": secret, "the feed token": feed, "a raw escape": "\x1b", "a raw CR": "\r", "a 5xx": "request failed", "a panic": "msg=panic"} {
		if strings.Contains(out, leak) {
			t.Errorf("the log holds %s", name)
		}
	}
	t.Logf("%d routes; %d refused requests, %d with markup, formulas and addresses as text", len(routes), refused, accepted)
}

// refusedRequests are the requests of r that must be refused: control
// characters in the query, a path parameter, each body field; huge bodies;
// for the channel routes, non-public addresses.
func refusedRequests(r hostileRoute) []hostileReq {
	var out []hostileReq
	sep := "?"
	if strings.Contains(r.path, "?") {
		sep = "&"
	}
	for _, c := range hostileControls {
		out = append(out, hostileReq{name: fmt.Sprintf("query %q", c), path: r.path + sep + "q=" + url.QueryEscape(c), body: r.body})
	}
	if strings.Contains(r.template, ":") {
		for _, c := range []string{"a\rb", "\x1b[2J"} {
			p := regexp.MustCompile(`:[a-z]+`).ReplaceAllString(r.template, url.PathEscape(c))
			out = append(out, hostileReq{name: fmt.Sprintf("path %q", c), path: p, body: r.body})
		}
	}
	if r.method != http.MethodGet && r.method != http.MethodHead { // nothing reads their bodies
		for _, req := range eachString(r.body, isAPI(r.path), controlsFor) {
			req.path = r.path
			out = append(out, req)
		}
		out = append(out, hostileReq{name: "huge streamed multipart body", path: r.path, streamed: 8 << 20})
	}
	out = append(out, hostileReq{name: "huge declared body", path: r.path, declared: uploadLimit(r.path) + 1})
	switch r.key {
	case "POST /api/v1/notifications/channels":
		for _, typ := range []string{"webhook", "slack"} {
			for _, u := range hostileURLs {
				out = append(out, hostileReq{name: typ + " " + u, path: r.path, body: fmt.Sprintf(`{"type":%q,"url":%q}`, typ, u)})
			}
		}
	case "POST /settings/notifications/channels":
		for _, u := range hostileURLs {
			out = append(out, hostileReq{name: "form " + u, path: r.path, body: url.Values{"type": {"webhook"}, "target": {u}}.Encode()})
		}
	}
	return out
}

// checkHostileOutputs makes a job, a booking and a token with hostile
// names as the member and reads them back where people and programs see
// them: pages escape the markup, the CSV export writes formulas as text,
// the booking's calendar and the member's feed parse. It returns the
// feed's secret token.
func checkHostileOutputs(t *testing.T, s *testserver.Server, f *authzFixture) string {
	t.Helper()
	f.t = t
	markup, formula := hostileMarkup[0]+hostileMarkup[1], hostileFormulas[0]
	job := f.api("POST", "/api/v1/queue/submit", fmt.Sprintf(`{"gpu_count":1,"executor":"lease","name":%q}`, markup), 201)
	_, body := f.bookingBody()
	booking := f.api("POST", "/api/v1/bookings", strings.TrimSuffix(body, "}")+fmt.Sprintf(`,"note":%q}`, formula), 201)
	f.api("PATCH", fmt.Sprintf("/api/v1/bookings/%d", booking), fmt.Sprintf(`{"note":%q}`, formula), 200)
	if st, _ := f.send(hostileReq{method: "POST", path: "/settings/tokens", body: url.Values{"name": {markup}}.Encode()}); st != http.StatusCreated {
		t.Errorf("token named with markup: %d", st)
	}
	for _, p := range []string{"/queue", fmt.Sprintf("/jobs/%d", job), "/bookings", fmt.Sprintf("/bookings/%d", booking), "/settings/tokens"} {
		st, html := f.send(hostileReq{method: "GET", path: p})
		if st != http.StatusOK || strings.Contains(html, "<script>alert") || strings.Contains(html, "<img src=x") || strings.Contains(html, "<!channel>") {
			t.Errorf("GET %s: %d, or markup shown unescaped", p, st)
		}
	}
	st, sheet := f.send(hostileReq{method: "GET", path: "/api/v1/bookings/export"})
	recs, err := csv.NewReader(strings.NewReader(sheet)).ReadAll()
	if st != http.StatusOK || err != nil || !strings.Contains(sheet, "'"+formula[:10]) {
		t.Errorf("CSV export: %d (%v), want the formula note written as text:\n%s", st, err, sheet)
	}
	for _, rec := range recs {
		for _, cell := range rec {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("CSV cell %q would run as a formula", cell)
			}
		}
	}
	if st, ics := f.send(hostileReq{method: "GET", path: fmt.Sprintf("/bookings/%d/export.ics", booking)}); st != http.StatusOK || !strings.Contains(ics, "BEGIN:VEVENT") {
		t.Errorf("the booking's calendar: %d", st)
	}
	st, html := f.send(hostileReq{method: "POST", path: "/settings/feeds/mine/regenerate"})
	m := feedURL.FindStringSubmatch(html)
	if st != http.StatusCreated || m == nil {
		t.Fatalf("regenerate the feed: %d", st)
	}
	if st, _ := feedEvents(t, m[1]); st != http.StatusOK {
		t.Errorf("the member's feed: %d", st)
	}
	_, token, _ := strings.Cut(m[1], "/calendar/cal_")
	return strings.TrimSuffix(token, ".ics")
}
