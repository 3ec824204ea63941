package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/web"
)

// The classes of payload a hostile member sends (the hostile-member suite).
var (
	// hostileControls break a calendar, a CSV, a log line or a terminal;
	// every one-line field refuses them all.
	hostileControls = []string{"a\rb", "a\nb", "a\tb", "\x1b[2J\x1b]8;;https://evil.example\x07x\x1b]8;;\x07", "a\x7fb", "a\u0085b", "a\u009b2J"}
	// hostileHardControls are refused even where text spans lines.
	hostileHardControls = []string{"\x1b[31mred", "bell\x07", "a\x7fb", "a\u009b2J"}
	// hostileMarkup would be markup if shown unescaped: HTML, Slack mentions and disguised links.
	hostileMarkup = []string{`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`,
		`<!channel> <https://evil.example/login|Open in GPUScheduler> & *x*`}
	// hostileFormulas run in a spreadsheet if exported as they are.
	hostileFormulas = []string{`=HYPERLINK("https://evil.example","x")`, "+1+1", "-2+3", "@SUM(A1:A9)"}
	// hostileURLs reach the server's own machine or networks.
	hostileURLs = []string{"https://[::1%25lo]:8443/", "https://[::ffff:127.0.0.1%25lo]/", "https://[fe80::1%25eth0]/",
		"https://127.0.0.1/", "https://localhost./", "https://10.0.0.5/", "https://172.16.0.1/", "https://192.168.1.1/",
		"https://100.64.0.1/", "https://[fc00::1]/", "https://0.1.2.3/", "https://[64:ff9b::a00:5]/", "https://169.254.169.254/latest/"}
)

// multiLine lists the fields (first path element) that may span lines.
var multiLine = map[string]bool{"command": true, "env": true, "policy": true, "sheet": true}

// controlsFor are the control payloads field must refuse.
func controlsFor(field string) []string {
	if i := strings.IndexAny(field, ".["); i >= 0 {
		field = field[:i]
	}
	if multiLine[field] {
		return hostileHardControls
	}
	return hostileControls
}

// hostileReq is one request of the suite.
type hostileReq struct {
	name, method, path, body string
	// declared: a body of this many zero bytes, its length declared.
	declared int64
	// streamed: a multipart body of this many bytes, streamed (no length).
	streamed int64
}

// isAPI reports whether p is served as JSON with a bearer token.
func isAPI(p string) bool { return strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/v1/") }

// eachString returns body once per text value in it, that value replaced
// by each of payloads(field): the strings of a JSON object, the fields of
// a form (a form without fields gets a note).
func eachString(body string, api bool, payloads func(field string) []string) []hostileReq {
	var out []hostileReq
	if !api {
		form, _ := url.ParseQuery(body)
		if len(form) == 0 {
			form = url.Values{"note": {""}}
		}
		for _, k := range sortedKeys(form) {
			for _, v := range payloads(k) {
				c := url.Values{}
				for kk, vv := range form {
					c[kk] = vv
				}
				c.Set(k, v)
				out = append(out, hostileReq{name: fmt.Sprintf("form %s=%q", k, v), body: c.Encode()})
			}
		}
		return out
	}
	var doc any
	if json.Unmarshal([]byte(body), &doc) != nil {
		return nil
	}
	var walk func(v any, path string, set func(any) any)
	walk = func(v any, path string, set func(any) any) {
		switch x := v.(type) {
		case string:
			for _, p := range payloads(path) {
				b, _ := json.Marshal(set(p))
				out = append(out, hostileReq{name: fmt.Sprintf("json %s=%q", path, p), body: string(b)})
			}
		case map[string]any:
			for _, k := range sortedKeys(x) {
				walk(x[k], strings.TrimPrefix(path+"."+k, "."), func(r any) any {
					c := make(map[string]any, len(x))
					for kk, vv := range x {
						c[kk] = vv
					}
					c[k] = r
					return set(c)
				})
			}
		case []any:
			for i := range x {
				walk(x[i], fmt.Sprintf("%s[%d]", path, i), func(r any) any {
					c := append([]any(nil), x...)
					c[i] = r
					return set(c)
				})
			}
		}
	}
	walk(doc, "", func(r any) any { return r })
	return out
}

// uploadLimit is the body limit of the route at p.
func uploadLimit(p string) int64 {
	if strings.HasPrefix(p, "/admin/import") {
		return web.UploadBodyLimit
	}
	if strings.HasPrefix(p, "/s/") {
		return web.SessionBodyLimit
	}
	return web.DefaultBodyLimit
}

// send sends r as the member: a bearer token for the API, the session
// cookie and a CSRF token for pages; it returns the status and the start
// of the answer.
func (f *authzFixture) send(r hostileReq) (int, string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var body io.Reader = strings.NewReader(r.body)
	switch {
	case r.declared > 0:
		body = io.LimitReader(zeros{}, r.declared)
	case r.streamed > 0:
		body = newCountingBody("hostile-csrf-token", r.streamed)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, f.s.URL+r.path, body)
	if err != nil {
		f.t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	switch {
	case r.declared > 0:
		req.ContentLength = r.declared
	case r.streamed > 0:
		req.ContentLength = -1
	}
	switch {
	case r.streamed > 0:
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+hugeBoundary)
	case isAPI(r.path):
		req.Header.Set("Content-Type", "application/json")
	default:
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if isAPI(r.path) {
		req.Header.Set("Authorization", "Bearer "+f.tokens[member])
	} else {
		req.Header.Set("X-CSRF-Token", "hostile-csrf-token")
		req.AddCookie(&http.Cookie{Name: "gpusched_csrf", Value: "hostile-csrf-token"})
		req.AddCookie(&http.Cookie{Name: web.SessionCookie, Value: f.sessions[member]})
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		f.t.Fatalf("%s %s (%s): %v", r.method, r.path, r.name, err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		_, _ = io.Copy(&out, io.LimitReader(resp.Body, 64<<10))
	}
	return resp.StatusCode, out.String()
}
