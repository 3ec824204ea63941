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
	return rewrite(s, func(t time.Time) string { return Stamp(t, loc) })
}

// InstantsNear rewrites the RFC 3339 instants in s as When from now in
// loc, for sentences about the present (why a job waits): "until
// 2026-11-29T08:00:00Z" reads "until 09:00 CET" that day.
func InstantsNear(s string, now time.Time, loc *time.Location) string {
	return rewrite(s, func(t time.Time) string { return When(t, now, loc) })
}

func rewrite(s string, word func(time.Time) string) string {
	return rfc3339.ReplaceAllStringFunc(s, func(m string) string {
		t, err := time.Parse(time.RFC3339Nano, m)
		if err != nil {
			return m
		}
		return word(t)
	})
}
