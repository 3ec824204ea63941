package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A Berlin viewer reads every time in her zone: the API's error sentences
// and every page carry no "UTC", no raw RFC 3339 timestamp and no date and
// time without its zone, and the times they do show are Berlin's, with
// the zone's abbreviation.
func TestBerlinViewerSeesNoUTC(t *testing.T) {
	t.Parallel()
	f := newBerlinFixture(t)
	// In order: the quiet hours are saved before the pages are read.
	t.Run("API errors", func(t *testing.T) { berlinAPIErrors(t, f) })
	t.Run("forms", func(t *testing.T) { berlinForms(t, f) })
	t.Run("quiet hours", func(t *testing.T) { berlinQuietHours(t, f) })
	t.Run("pages", func(t *testing.T) { berlinPageSweep(t, f) })
	t.Run("notifications", func(t *testing.T) { berlinNotifications(t, f) })
}

// berlinAPIErrors: the API's error sentences, each with the Berlin time it
// must name.
func berlinAPIErrors(t *testing.T, f *berlinFixture) {
	clashAt, in := f.stamp(f.clash), func(d time.Duration) string { return f.clash.Add(d).UTC().Format(time.RFC3339) }
	day, weekday := f.day()
	past := localtime.StartOfDay(time.Now(), f.berlin).AddDate(0, 0, -2)
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"clash", "POST", "/api/v1/bookings", zoneBookingBody(f.clash, f.clash.Add(time.Hour), 1), http.StatusConflict, clashAt},
		{"end before start", "POST", "/api/v1/bookings", fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q}`, in(time.Hour), in(0)),
			http.StatusUnprocessableEntity, f.stamp(f.clash.Add(time.Hour))},
		{"window over", "POST", "/api/v1/bookings", zoneBookingBody(past, past.Add(time.Hour), 1), http.StatusUnprocessableEntity, f.stamp(past.Add(time.Hour))},
		{"edit clash", "PATCH", fmt.Sprintf("/api/v1/bookings/%d", f.anaBooking), fmt.Sprintf(`{"starts_at":%q,"ends_at":%q}`, in(0), in(time.Hour)),
			http.StatusConflict, clashAt},
		{"edit end before start", "PATCH", fmt.Sprintf("/api/v1/bookings/%d", f.anaBooking), fmt.Sprintf(`{"ends_at":%q}`, f.mine.Add(-time.Hour).UTC().Format(time.RFC3339)),
			http.StatusUnprocessableEntity, f.stamp(f.mine.Add(-time.Hour))},
		{"series clash", "POST", "/api/v1/bookings/series", fmt.Sprintf(`{"gpu_count":1,"time_zone":"Europe/Berlin","first_day":%q,"last_day":%q,"days":[%q],"start_time":"09:00","end_time":"10:00"}`, day, day, weekday),
			http.StatusConflict, clashAt},
	} {
		st, b := f.s.Do(t, c.method, c.path, f.anaTok, c.body)
		if st != c.status {
			t.Errorf("%s: %d, want %d: %s", c.name, st, c.status, b)
			continue
		}
		var e struct {
			Error string `json:"error"`
		}
		mustJSON(t, b, &e)
		if leaks := zoneLeaks(e.Error); len(leaks) > 0 || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: the API's error %q should name %q in Berlin time, without UTC or RFC 3339", c.name, e.Error, c.want)
		}
	}
}

// berlinForms: the same refusals on the pages' forms.
func berlinForms(t *testing.T, f *berlinFixture) {
	clashAt := f.stamp(f.clash)
	day, weekday := f.day()
	local := func(t time.Time) string { return localtime.FormValue(t, f.berlin) }
	for _, c := range []struct {
		name, path string
		form       url.Values
		status     int
		want       string
	}{
		{"form clash", "/bookings", url.Values{"gpu_count": {"1"}, "starts_at": {local(f.clash)}, "ends_at": {local(f.clash.Add(time.Hour))}},
			http.StatusConflict, clashAt},
		{"form end before start", "/bookings", url.Values{"gpu_count": {"1"}, "starts_at": {local(f.clash.Add(time.Hour))}, "ends_at": {local(f.clash)}},
			http.StatusUnprocessableEntity, f.stamp(f.clash.Add(time.Hour))},
		{"edit form clash", fmt.Sprintf("/bookings/%d/edit", f.anaBooking), url.Values{"gpu_count": {"1"}, "starts_at": {local(f.clash)}, "ends_at": {local(f.clash.Add(time.Hour))}},
			http.StatusConflict, clashAt},
		{"series form clash", "/bookings/series", url.Values{"gpu_count": {"1"}, "first_day": {day}, "last_day": {day}, "days": {weekday},
			"start_time": {"09:00"}, "end_time": {"10:00"}, "time_zone": {"Europe/Berlin"}}, http.StatusConflict, "09:00"},
	} {
		st, body, _ := postForm(t, f.s, f.anaWeb, c.path, c.form)
		if st != c.status {
			t.Errorf("%s: %d, want %d", c.name, st, c.status)
			continue
		}
		text := humanText(t, body)
		if leaks := zoneLeaks(text); len(leaks) > 0 || !strings.Contains(text, c.want) {
			t.Errorf("%s: the page should name %q in Berlin time; it shows %q", c.name, c.want, leaks)
		}
	}
}

// berlinQuietHours: quiet hours typed on the settings page are read on
// her clock. They start two hours from now, so that they hold back none of
// the fixture's deliveries.
func berlinQuietHours(t *testing.T, f *berlinFixture) {
	now := time.Now().In(f.berlin)
	from := time.Date(now.Year(), now.Month(), now.Day(), now.Hour()+2, 0, 0, 0, f.berlin)
	until := time.Date(from.Year(), from.Month(), from.Day(), from.Hour()+3, 0, 0, 0, f.berlin)
	form := url.Values{"quiet_start": {from.Format("15:04")}, "quiet_end": {until.Format("15:04")}}
	for e, kinds := range models.DefaultPreferences() {
		form["pref."+e] = kinds
	}
	if st, body, _ := postForm(t, f.s, f.anaWeb, "/settings/notifications", form); st != http.StatusOK || !strings.Contains(body, "Preferences saved") {
		t.Fatalf("quiet hours: %d", st)
	}
	prefs, err := models.GetPrefs(t.Context(), f.s.DB.Bun, f.ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	if quiet, end := prefs.Quiet(from.Add(30 * time.Minute)); !quiet || !end.Equal(until) {
		t.Errorf("%s in Berlin: quiet %v until %v, want quiet until %s in Berlin", from.Add(30*time.Minute).Format("15:04"), quiet, end, until.Format("15:04"))
	}
	if quiet, _ := prefs.Quiet(from.Add(-30 * time.Minute)); quiet {
		t.Errorf("%s in Berlin is quiet; quiet hours start at %s in her zone", from.Add(-30*time.Minute).Format("15:04"), from.Format("15:04"))
	}
	if got := humanText(t, getPage(t, f.anaWeb, f.s.URL+"/settings/notifications")); !strings.Contains(got, "Europe/Berlin") {
		t.Errorf("the quiet hours do not say which zone they are in:\n%s", got)
	}
}

// berlinPageSweep reads every page; the time zone setting may name UTC:
// it is one of the zones to choose.
func berlinPageSweep(t *testing.T, f *berlinFixture) {
	s := f.s
	for _, path := range berlinPages(t, f) {
		st, body := fetchPage(t, s, f.anaWeb, path)
		if st == http.StatusSeeOther || st == http.StatusFound {
			continue // the page it leads to is in the sweep
		}
		if st != http.StatusOK {
			t.Errorf("GET %s: %d", path, st)
			continue
		}
		text := humanText(t, body)
		if path == "/settings/time-zone" {
			text = utcWord.ReplaceAllString(text, "the zone")
		}
		if leaks := zoneLeaks(text); len(leaks) > 0 {
			t.Errorf("GET %s shows times in UTC, in RFC 3339 or without their zone:\n%s", path, strings.Join(leaks, "\n"))
		}
	}
	b, err := models.GetBooking(t.Context(), s.DB.Bun, f.carlNow)
	if err != nil {
		t.Fatal(err)
	}
	if until := "until " + localtime.When(b.EndsAt, time.Now(), f.berlin); !strings.Contains(humanText(t, getPage(t, f.anaWeb, s.URL+"/queue")), until) {
		t.Errorf("the queue should say small-train waits %s", until)
	}
	abbr := localtime.Abbrev(time.Now(), f.berlin)
	if sessions := humanText(t, getPage(t, f.anaWeb, s.URL+"/settings")); !strings.Contains(sessions, abbr) {
		t.Errorf("Settings → where you are signed in should say when in Berlin time (%s):\n%s", abbr, sessions)
	}
}

// berlinNotifications: what she was told, in the list and by webhook.
func berlinNotifications(t *testing.T, f *berlinFixture) {
	s := f.s
	note := getPage(t, f.anaWeb, s.URL+"/notifications")
	for _, want := range []string{f.stamp(f.clash.Add(-time.Hour)), f.stamp(f.mine)} {
		if !strings.Contains(humanText(t, note), want) {
			t.Errorf("the notifications list should say %q", want)
		}
	}
	idle := f.recv.next(t, models.EventGPUIdle, 15*time.Second)
	if p := idle.Payload; p.Idle == nil || p.Idle.ReclaimAt == nil || len(zoneLeaks(p.Reason)) > 0 || !strings.Contains(p.Reason, f.stamp(*p.Idle.ReclaimAt)) {
		t.Errorf("ana's webhook: gpu.idle reason %q should say when in Berlin time", p.Reason)
	} else if p.Idle.ReclaimAt.Location() != time.UTC {
		t.Errorf("the payload's reclaim_at %v should stay UTC", p.Idle.ReclaimAt)
	}
}

// berlinPages are the GET pages of the route table, their parameters
// filled from the fixture, and the views a query chooses. A page route the
// sweep cannot fill fails it: add the new page here.
func berlinPages(t *testing.T, f *berlinFixture) []string {
	t.Helper()
	machine := map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true, "/static/*": true, "/favicon.ico": true,
		"/calendar/:file": true, "/events": true, "/usage/data": true, "/bookings/export": true, "/bookings/:id/export.ics": true, "/accounting/export": true,
		"/auth/:provider": true, "/auth/:provider/callback": true, "/login": true,
		// A session's own server, through the proxy: its pages are its own.
		"/s/:id": true, "/s/:id/*": true}
	params := map[string]string{
		"/jobs/:id": fmt.Sprintf("/jobs/%d", f.lease), "/fragments/jobs/:id": fmt.Sprintf("/fragments/jobs/%d", f.lease),
		"/fragments/jobs/:id/logs": fmt.Sprintf("/fragments/jobs/%d/logs", f.lease),
		"/bookings/:id":            fmt.Sprintf("/bookings/%d", f.anaBooking),
	}
	day := f.clash.In(f.berlin).Format("2006-01-02")
	seen := map[string]bool{}
	var out []string
	for _, r := range f.s.Web.Echo.Routes() {
		p := r.Path
		if r.Method != http.MethodGet || machine[p] || seen[p] || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/v1/") ||
			strings.HasPrefix(p, "/admin/river") {
			continue
		}
		seen[p] = true
		if strings.Contains(p, ":") || strings.Contains(p, "*") {
			if params[p] == "" {
				t.Errorf("page %s has parameters the zone sweep does not fill: add it to berlinPages", p)
				continue
			}
			p = params[p]
		}
		out = append(out, p)
	}
	out = append(out, "/bookings?date="+day, "/bookings?view=day&date="+day, "/bookings?view=month&date="+day,
		"/fragments/bookings?date="+day, "/usage?range=week", "/usage?range=month", "/bookings/series/new")
	sort.Strings(out)
	return out
}
