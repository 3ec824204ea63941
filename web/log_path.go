package web

import "strings"

// logPath is the one redaction of a request path for the logs: the access
// line, the error line and the panic line all log this. A calendar feed's
// secret token (/calendar/{token}.ics, or a feed token anywhere a client
// mistyped the path) is never written to the logs.
func logPath(p string) string {
	if i := strings.Index(p, "/calendar/"); i >= 0 {
		return p[:i] + "/calendar/[token].ics"
	}
	if !strings.Contains(p, "cal_") {
		return p
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "cal_") {
			segs[i] = "[token]"
		}
	}
	return strings.Join(segs, "/")
}
