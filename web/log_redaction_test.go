package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// A calendar feed's secret token never reaches the server's log: not on
// the access line, not on the error line of a feed that fails, not on a
// mistyped path that holds it.
func TestFeedTokenNeverLogged(t *testing.T) {
	t.Parallel()
	logs := &testserver.Logs{}
	s := testserver.NewWith(t, testserver.Options{Logs: logs})
	ana := s.Login(t, "ana@example.com")
	st, html, _ := postForm(t, s, ana, "/settings/feeds/team/regenerate", url.Values{})
	m := feedURL.FindStringSubmatch(html)
	if st != http.StatusCreated || m == nil {
		t.Fatalf("regenerate: %d", st)
	}
	feed := m[1]
	_, token, _ := strings.Cut(feed, "/calendar/")
	token = strings.TrimSuffix(token, ".ics")
	get := func(u string) int {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, resp)
		return resp.StatusCode
	}
	if st := get(feed); st != http.StatusOK {
		t.Fatalf("feed: %d", st)
	}
	get(s.URL + "//calendar/" + token + ".ics")
	get(s.URL + "/feeds/" + token)
	// The feed fails on our side: its error line is logged.
	if _, err := s.DB.Bun.NewRaw("ALTER TABLE bookings RENAME TO bookings_gone").Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := get(feed); st != http.StatusInternalServerError {
		t.Fatalf("broken feed: %d, want 500", st)
	}
	out := logs.String()
	if !strings.Contains(out, "request failed") || !strings.Contains(out, "/calendar/[token].ics") {
		t.Fatalf("no redacted error line was logged:\n%s", out)
	}
	secret := strings.TrimPrefix(token, "cal_")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, secret) {
			t.Errorf("the feed token was logged: %s", line)
		}
	}
}
