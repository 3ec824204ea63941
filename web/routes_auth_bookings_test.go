package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// The calendar's, the job page's and the queue page's routes refuse
// whoever is not signed in: pages send to the sign-in page, forms are
// refused, the API wants a token.
func TestBookingAndJobRoutesNeedSignIn(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	c := noRedirect(s.Client())
	tests := map[string]struct {
		method, path string
		status       int
		location     string
	}{
		"calendar":          {"GET", "/bookings", http.StatusSeeOther, "/login?next="},
		"calendar fragment": {"GET", "/fragments/bookings", http.StatusSeeOther, "/login?next="},
		"book":              {"POST", "/bookings", http.StatusForbidden, ""},
		"cancel booking":    {"POST", "/bookings/1/cancel", http.StatusForbidden, ""},
		"job page":          {"GET", "/jobs/1", http.StatusSeeOther, "/login?next="},
		"job fragment":      {"GET", "/fragments/jobs/1", http.StatusSeeOther, "/login?next="},
		"job output":        {"GET", "/fragments/jobs/1/logs", http.StatusSeeOther, "/login?next="},
		"set priority":      {"POST", "/jobs/1/priority", http.StatusForbidden, ""},
		"submit from page":  {"POST", "/queue", http.StatusForbidden, ""},
		"list bookings":     {"GET", "/api/v1/bookings", http.StatusUnauthorized, ""},
		"create booking":    {"POST", "/api/v1/bookings", http.StatusUnauthorized, ""},
		"delete booking":    {"DELETE", "/api/v1/bookings/1", http.StatusUnauthorized, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, s.URL+tc.path, strings.NewReader("a=b"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			// A form without a session has no CSRF token either: refused before anything else.
			if resp.StatusCode != tc.status && !(tc.status == http.StatusForbidden && resp.StatusCode == http.StatusBadRequest) {
				t.Fatalf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
			}
			if !strings.HasPrefix(resp.Header.Get("Location"), tc.location) {
				t.Errorf("%s %s sent to %q, want %q…", tc.method, tc.path, resp.Header.Get("Location"), tc.location)
			}
		})
	}
}
