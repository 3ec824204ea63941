package web

import "strings"

// logPath is the path a request line logs: a calendar feed's secret token
// (/calendar/{token}.ics) is never written to the logs.
func logPath(p string) string {
	if strings.HasPrefix(p, "/calendar/") {
		return "/calendar/[token].ics"
	}
	return p
}
