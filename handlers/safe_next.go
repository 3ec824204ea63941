package handlers

import (
	"net/url"
	"strings"
)

// safeNext keeps a post-sign-in redirect on this site. The target is parsed,
// not pattern-matched: anything with control characters (browsers drop tabs
// and newlines, so "/\t/evil" becomes "//evil"), a backslash (read as a
// slash), or an encoded slash or backslash is refused; what is left must
// parse as a bare path (no scheme, no host) that starts with exactly one
// "/". Everything else becomes "/".
func safeNext(next string) string {
	if next == "" || len(next) > 2048 {
		return "/"
	}
	for _, r := range next {
		if r < 0x20 || r == 0x7f || r == '\\' || (r >= 0x80 && r <= 0x9f) || r == '\u2028' || r == '\u2029' {
			return "/"
		}
	}
	lower := strings.ToLower(next)
	for _, bad := range []string{"%2f", "%5c", "%09", "%0a", "%0d", "%00"} {
		if strings.Contains(lower, bad) {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	if !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return "/"
	}
	return u.RequestURI() + fragment(u)
}

func fragment(u *url.URL) string {
	if u.Fragment == "" {
		return ""
	}
	return "#" + u.EscapedFragment()
}
