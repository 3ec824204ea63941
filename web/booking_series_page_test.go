package web_test

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

var seriesID = regexp.MustCompile(`action="/bookings/series/(\d+)/cancel"`)

// The recurring booking works from pages without JavaScript: a clash
// lists the occurrence and with whom; booked, the first occurrence's page
// lists the series; one occurrence is canceled alone, then the series.
func TestBookingSeriesPages(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, bo := s.Login(t, "ana@example.com"), s.Login(t, "bo@example.com")
	if st, html := calGet(t, s, ana, "/bookings/series/new"); st != 200 || !strings.Contains(html, `data-testid="series-form"`) {
		t.Fatalf("form: %d", st)
	}
	first := time.Now().UTC().AddDate(0, 0, 1)
	form := url.Values{"gpu_count": {"2"}, "first_day": {first.Format("2006-01-02")}, "last_day": {first.AddDate(0, 0, 6).Format("2006-01-02")},
		"days": {"mon", "tue", "wed", "thu", "fri", "sat", "sun"}, "start_time": {"09:00"}, "end_time": {"11:00"}, "time_zone": {"UTC"}, "note": {"demo slot"}}
	blocker := calSeed(t, s, calUserID(t, s, "bo@example.com"), 8, 10, 11)
	st, html, _ := postForm(t, s, ana, "/bookings/series", form)
	if st != 409 || !strings.Contains(html, "1 of the 7 occurrences is not free") || !strings.Contains(html, fmt.Sprintf(`href="/bookings/%d"`, blocker)) ||
		!strings.Contains(html, "bo@example.com") {
		t.Fatalf("a series over bo's booking: %d", st)
	}
	if st, _, _ := postForm(t, s, bo, fmt.Sprintf("/bookings/%d/cancel-one", blocker), url.Values{}); st != 303 {
		t.Fatalf("bo cancels: %d", st)
	}
	st, _, loc := postForm(t, s, ana, "/bookings/series", form)
	if st != 303 || !strings.HasSuffix(loc, "?done=series") {
		t.Fatalf("series: %d → %s", st, loc)
	}
	_, html = calGet(t, s, ana, loc)
	if n := strings.Count(html, `data-testid="occurrence"`); n != 7 {
		t.Fatalf("the first occurrence's page lists %d occurrences, want 7", n)
	}
	second := regexp.MustCompile(`<tr data-testid="occurrence" data-state="upcoming"><td data-label="When"><a href="/bookings/(\d+)"`).FindAllStringSubmatch(html, -1)[1][1]
	if st, _, _ := postForm(t, s, ana, "/bookings/"+second+"/cancel-one", url.Values{}); st != 303 {
		t.Fatalf("cancel one occurrence: %d", st)
	}
	_, html = calGet(t, s, ana, loc)
	if n := strings.Count(html, `data-state="canceled"`); n != 1 {
		t.Fatalf("%d canceled occurrences listed, want 1", n)
	}
	m := seriesID.FindStringSubmatch(html)
	if m == nil {
		t.Fatal("no cancel-series form")
	}
	if st, _, _ := postForm(t, s, bo, "/bookings/series/"+m[1]+"/cancel", url.Values{}); st != 403 {
		t.Fatalf("bo cancels ana's series: %d", st)
	}
	if st, _, _ := postForm(t, s, ana, "/bookings/series/"+m[1]+"/cancel", url.Values{}); st != 303 {
		t.Fatalf("cancel the series: %d", st)
	}
	if _, html = calGet(t, s, ana, loc); strings.Count(html, `data-state="canceled"`) != 7 {
		t.Fatalf("after canceling the series not every occurrence is canceled")
	}
}
