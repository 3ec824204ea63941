package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// fetchSession GETs path on the dashboard with c, following the redirects
// a browser would (the handoff to the session origin and back), and
// returns the last answer and the URL it came from.
func fetchSession(t *testing.T, s *testserver.Server, c *http.Client, path string) (int, string, string) {
	t.Helper()
	at := s.URL + path
	for range 6 {
		resp, err := c.Get(at)
		if err != nil {
			t.Fatal(err)
		}
		body := string(readAll(t, resp))
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || loc == "" || strings.HasPrefix(loc, "/login") {
			return resp.StatusCode, body, at
		}
		base, _ := url.Parse(at)
		next, err := base.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		at = next.String()
	}
	t.Fatalf("too many redirects from %s", path)
	return 0, "", ""
}
