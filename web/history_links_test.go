package web_test

import (
	"strings"
	"testing"
)

// The queue page leads to the same people's ended jobs, and the nav to
// the history; the history page works without JavaScript (a GET form).
func TestQueueLinksToHistory(t *testing.T) {
	t.Parallel()
	f := newHistoryFixture(t)
	c := f.s.Login(t, f.ana.Email)
	tests := map[string]struct{ path, want string }{
		"everyone's":               {"/queue", `href="/history"`},
		"mine":                     {"/queue?mine=1", `href="/history?mine=1"`},
		"my team's, running":       {"/queue?team=1&state=running", `href="/history?team=1"`},
		"the nav":                  {"/queue", `<a href="/history"`},
		"the filter is a GET form": {"/history", `method="get" action="/history"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st, page := fetchPage(t, f.s, c, tc.path)
			if st != 200 {
				t.Fatalf("GET %s: %d", tc.path, st)
			}
			if !strings.Contains(page, tc.want) {
				t.Errorf("GET %s: no %s", tc.path, tc.want)
			}
		})
	}
}
