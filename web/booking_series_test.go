package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A weekday series for two weeks: one clashing occurrence refuses the whole
// series (409 listing it, nothing written); once free it is booked; one
// occurrence is canceled on its own, then the rest of the series.
func TestBookingSeries(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, anaUser := s.UserToken(t, models.RoleMember)
	bo, boUser := s.UserToken(t, models.RoleMember)
	loc := mustZone(t, "Europe/Berlin")
	first := time.Now().In(loc).AddDate(0, 0, 1)
	for first.Weekday() == time.Saturday || first.Weekday() == time.Sunday {
		first = first.AddDate(0, 0, 1)
	}
	day := func(d time.Time) string { return d.Format("2006-01-02") }
	body := fmt.Sprintf(`{"gpu_count":2,"gpu_model":"H100","note":"reading group","time_zone":"Europe/Berlin","first_day":%q,"last_day":%q,
		"days":["mon","tue","wed","thu","fri"],"start_time":"09:00","end_time":"18:00"}`, day(first), day(first.AddDate(0, 0, 13)))
	// Bo holds all 8 GPUs for an hour on the first day.
	blocker := calBook(t, s, bo, fmt.Sprintf(`{"gpu_count":8,"starts_at":%q,"ends_at":%q}`,
		time.Date(first.Year(), first.Month(), first.Day(), 12, 0, 0, 0, loc).Format(time.RFC3339),
		time.Date(first.Year(), first.Month(), first.Day(), 13, 0, 0, 0, loc).Format(time.RFC3339)))
	st, resp := s.Do(t, "POST", "/api/v1/bookings/series", ana, body)
	var clash struct {
		Error   string `json:"error"`
		Code    string `json:"code"`
		Clashes []struct {
			Occurrence int
			With       []models.ClashRival
		} `json:"clashes"`
	}
	mustJSON(t, resp, &clash)
	if st != http.StatusConflict || len(clash.Clashes) != 1 || clash.Clashes[0].Occurrence != 1 || clash.Clashes[0].With[0].ID != blocker.ID ||
		!strings.Contains(clash.Error, boUser.Email) {
		t.Fatalf("series over bo's booking: %d %s", st, resp)
	}
	if n := countBookings(t, s); n != 1 {
		t.Fatalf("%d bookings after a refused series, want bo's 1", n)
	}
	if st, b := s.Do(t, "DELETE", fmt.Sprintf("/api/v1/bookings/%d", blocker.ID), bo, ""); st != 200 {
		t.Fatalf("bo cancels: %d %s", st, b)
	}
	st, resp = s.Do(t, "POST", "/api/v1/bookings/series", ana, body)
	var series api.Series
	mustJSON(t, resp, &series)
	if st != 201 || len(series.Bookings) != 10 {
		t.Fatalf("series: %d, %d occurrences, want 10: %s", st, len(series.Bookings), resp)
	}
	for _, b := range series.Bookings {
		if h := b.StartsAt.In(loc).Hour(); h != 9 || b.User != anaUser.Email || b.SeriesID == nil || *b.SeriesID != series.SeriesID {
			t.Fatalf("occurrence %+v", b)
		}
	}
	second := series.Bookings[1].ID
	if st, b := s.Do(t, "DELETE", fmt.Sprintf("/api/v1/bookings/%d", second), ana, ""); st != 200 {
		t.Fatalf("cancel one occurrence: %d %s", st, b)
	}
	if st, _ := s.Do(t, "DELETE", fmt.Sprintf("/api/v1/bookings/series/%d", series.SeriesID), bo, ""); st != http.StatusForbidden {
		t.Fatalf("bo cancels ana's series: %d", st)
	}
	st, resp = s.Do(t, "DELETE", fmt.Sprintf("/api/v1/bookings/series/%d", series.SeriesID), ana, "")
	if st != 200 || !contains(resp, `"canceled":9`) {
		t.Fatalf("cancel the series: %d %s", st, resp)
	}
	if st, b := s.Do(t, "POST", "/api/v1/bookings/series", ana, strings.Replace(body, `"09:00"`, `"9h"`, 1)); st != 400 || !contains(b, "start_time") {
		t.Fatalf("a bad start_time: %d %s", st, b)
	}
}

// A series retried with the same Idempotency-Key is booked once.
func TestBookingSeriesIdempotent(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, _ := s.UserToken(t, models.RoleMember)
	d := time.Now().UTC().AddDate(0, 0, 2).Format("2006-01-02")
	body := fmt.Sprintf(`{"gpu_count":1,"first_day":%q,"last_day":%q,"start_time":"09:00","end_time":"10:00"}`, d, d)
	for range 2 {
		if st, b := doKey(t, s, "POST", "/api/v1/bookings/series", tok, "series-1", body); st != 201 {
			t.Fatalf("series: %d %s", st, b)
		}
	}
	if n := countBookings(t, s); n != 1 {
		t.Fatalf("%d bookings after a retried series, want 1", n)
	}
}

// A series across the spring DST change keeps 09:00 Berlin time: 08:00 UTC
// before 28 March 2027, 07:00 UTC after; the sheet exported in Berlin time
// says 09:00 every day.
func TestBookingSeriesAcrossDST(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{Configure: func(_ string, h *handlers.Handlers) {
		h.Config.Bookings.MaxAhead = 400 * 24 * time.Hour
	}})
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(8)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	st, body := s.Do(t, "POST", "/api/v1/bookings/series", tok, `{"gpu_count":1,"time_zone":"Europe/Berlin","first_day":"2027-03-25",
		"last_day":"2027-03-30","days":["mon","tue","thu","fri"],"start_time":"09:00","end_time":"18:00"}`)
	var series api.Series
	mustJSON(t, body, &series)
	if st != 201 {
		t.Fatalf("series: %d %s", st, body)
	}
	var got []string
	for _, b := range series.Bookings {
		got = append(got, b.StartsAt.UTC().Format("Mon 15:04")+"–"+b.EndsAt.UTC().Format("15:04"))
	}
	if diff := cmp.Diff([]string{"Thu 08:00–17:00", "Fri 08:00–17:00", "Mon 07:00–16:00", "Tue 07:00–16:00"}, got); diff != "" {
		t.Errorf("occurrences in UTC (-want +got):\n%s", diff)
	}
	st, body = s.Do(t, "GET", "/api/v1/bookings/export?format=csv&tz=Europe/Berlin&from=2027-03-24T00:00:00Z&until=2027-04-01T00:00:00Z", tok, "")
	if st != 200 || strings.Count(string(body), " 09:00,") != 4 || strings.Count(string(body), " 18:00,") != 4 {
		t.Fatalf("export in Berlin time: %d\n%s", st, body)
	}
}
