package handlers

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// What a text field may hold besides printable text. Every user text field
// (job names, booking notes, channel addresses, token and team names, query
// and path parameters) is one line; the few that span lines are named in
// multiLineFields; only node agents' reports take any text. The rule is
// applied at the edge, by the JSON decoder (checkText) and by CheckParams
// for forms and queries, so a handler never sees a control character it
// did not ask for, and nothing stored can break a calendar feed, a CSV
// export, a log line or a terminal.
type textRule int

const (
	// oneLine refuses every control character: C0 (tab, CR and LF
	// included), DEL and C1.
	oneLine textRule = iota
	// lines allows LF and tab; CR LF and a lone CR are read as LF (what
	// browsers send from a textarea); any other control is refused.
	lines
	// anyText takes what is valid UTF-8 without NUL (PostgreSQL's text
	// refuses the rest): process names and output that node agents report.
	anyText
)

// multiLineFields are the fields, by form name or top-level JSON name, that
// may span lines: a job's command and environment, the admin's policy JSON
// and an imported sheet.
var multiLineFields = map[string]bool{"command": true, "env": true, "policy": true, "sheet": true}

// ruleFor is the rule of the field at path ("env.A", "gpus[1].uuid"),
// decided by its first element.
func ruleFor(path string) textRule {
	if i := strings.IndexAny(path, ".["); i >= 0 {
		path = path[:i]
	}
	if multiLineFields[path] {
		return lines
	}
	return oneLine
}

// problem says what is wrong with s under r, or "" when nothing is.
func (r textRule) problem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "must not contain NUL bytes"
	case r == anyText:
		return ""
	}
	for _, c := range s {
		switch {
		case c == '\n' || c == '\r' || c == '\t':
			if r == oneLine {
				return "must be one line, without line breaks or tabs"
			}
		case c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0):
			return fmt.Sprintf("must not contain control characters (U+%04X)", c)
		}
	}
	return ""
}

// normalize returns s as the field stores it: line breaks as LF.
func (r textRule) normalize(s string) string {
	if r != lines || !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// oneLineOf returns s without control characters, line breaks and tabs
// turned into spaces: for text that comes from elsewhere (a sign-in
// provider's display name) and cannot be refused.
func oneLineOf(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(c rune) rune {
		switch {
		case c == '\n' || c == '\r' || c == '\t':
			return ' '
		case c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0):
			return -1
		}
		return c
	}, s)
}
