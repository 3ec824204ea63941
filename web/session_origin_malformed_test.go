package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Malformed handoffs (none, empty, short, unknown, not base64, huge,
// another session's), ids (zero, negative, overflowing, not a number) and
// next paths (another host, another session, the handoff itself, dot
// segments out of the session's path) on the session origin: a 4xx and no
// cookie, or a redirect that stays within the session's own path; never a
// 5xx.
func TestSessionOriginMalformedInput(t *testing.T) {
	t.Parallel()
	o := newOriginFixture(t)
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
