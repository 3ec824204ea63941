package web_test

import (
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// rawInstant is an RFC 3339 timestamp as the API writes it: machines read
// those, people should not have to.
var rawInstant = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d`)

// bareDateTime is a date and time with no zone after it ("2026-11-28
// 08:59:22"): a person cannot tell whose clock it is.
var bareDateTime = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?( [A-Z]{2,5}\b| [+-]\d{4}\b)?`)

// utcWord is the zone name UTC as a word: a time labelled UTC, or a
// sentence saying times are UTC.
var utcWord = regexp.MustCompile(`\bUTC\b`)

// humanAttrs are the attributes a person reads (tooltips, labels for
// screen readers, hints); value, datetime and data-* are for machines.
var humanAttrs = map[string]bool{"title": true, "aria-label": true, "placeholder": true, "alt": true}

// literal elements hold what is typed or run as written (scripts, styles,
// code such as a sheet's format example), not sentences.
var literal = map[string]bool{"script": true, "style": true, "code": true}

// humanText is the text of a page that people read: text nodes outside
// literal elements, and the human attributes, one piece per line.
func humanText(t *testing.T, page string) string {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(page))
	var out strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out.String()
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			for _, a := range tok.Attr {
				if humanAttrs[a.Key] {
					out.WriteString(a.Val + "\n")
				}
			}
			if literal[tok.Data] && tok.Type == html.StartTagToken {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); literal[string(name)] && skip > 0 {
				skip--
			}
		case html.TextToken:
			if skip == 0 {
				if s := strings.TrimSpace(string(z.Text())); s != "" {
					out.WriteString(s + "\n")
				}
			}
		}
	}
}

// zoneLeaks lists the lines of text that show a time as UTC, as a raw RFC
// 3339 timestamp, or as a date and time without its zone.
func zoneLeaks(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		bare := false
		for _, m := range bareDateTime.FindAllStringSubmatch(line, -1) {
			bare = bare || m[1] == ""
		}
		if bare || utcWord.MatchString(line) || rawInstant.MatchString(line) {
			out = append(out, line)
		}
	}
	return out
}

// The sweep's own reader: text and tooltips count, machine attributes,
// scripts and styles do not.
func TestHumanText(t *testing.T) {
	t.Parallel()
	page := `<html><head><style>.a{}</style><script>var x = "2026-11-29T08:00:00Z UTC";</script></head><body>
<time datetime="2026-11-29T08:00:00Z" title="Sun 29 Nov 09:00 CET">09:00 CET</time>
<input type="datetime-local" value="2026-11-29T09:00" data-x="UTC">
<p>Times are UTC.</p><span aria-label="at 2026-11-29T08:00Z">x</span>
<td>2026-11-28 08:59:22</td><td>2026-11-28 09:59:22 CET</td><code>2026-11-23 09:00</code></body></html>`
	got := zoneLeaks(humanText(t, page))
	want := []string{"Times are UTC.", "at 2026-11-29T08:00Z", "2026-11-28 08:59:22"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("leaks %q, want %q", got, want)
	}
}
