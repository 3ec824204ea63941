package localtime

import (
	"regexp"
	"time"
)

// rfc3339 matches an instant as the API and stored texts write it:
// "2026-11-29T08:00:00Z", with fractions or an offset.
var rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)`)

// Instants rewrites the RFC 3339 instants in s as Stamp in loc: "given
// back at 2026-11-29T08:00:00Z" reads "given back at Sun 29 Nov 09:00 CET".
// Stored sentences (a notification's reason, an audit entry's details)
// name instants in UTC; this renders them for one reader.
func Instants(s string, loc *time.Location) string {
	return rfc3339.ReplaceAllStringFunc(s, func(m string) string {
		t, err := time.Parse(time.RFC3339Nano, m)
		if err != nil {
			return m
		}
		return Stamp(t, loc)
	})
}
