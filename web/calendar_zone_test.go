package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A member in Berlin books through the plain form across the spring DST
// change: the form's local times are read in her zone (20:00 CET to 08:00
// CEST is 11 hours), stored in UTC, and the week view, its capacity strip
// and the API show the same instants; a zone that does not exist is refused
// with a 422 naming the field.
func TestCalendarLocalTimeAcrossDST(t *testing.T) {
	t.Parallel()
	clock := time.Date(2027, 3, 20, 12, 0, 0, 0, time.UTC)
	s := testserver.NewWith(t, testserver.Options{Configure: func(_ string, h *handlers.Handlers) {
		h.Now = func() time.Time { return clock }
	}})
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(4)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	ana := s.Login(t, "ana@example.com")
	if st, body, _ := postForm(t, s, ana, "/settings/time-zone", url.Values{"time_zone": {"Mars/Olympus"}}); st != http.StatusUnprocessableEntity || !strings.Contains(body, "Time zone") {
		t.Fatalf("an unknown zone: %d, want 422 naming the field", st)
	}
	if st, body, _ := postForm(t, s, ana, "/settings/time-zone", url.Values{"time_zone": {"Europe/Berlin"}}); st != http.StatusOK || !strings.Contains(body, "Saved") {
		t.Fatalf("ana picks Europe/Berlin: %d", st)
	}
	// The browser's guess does not override a choice.
	if st, _, _ := postForm(t, s, ana, "/settings/time-zone", url.Values{"time_zone": {"Asia/Tokyo"}, "auto": {"1"}}); st != http.StatusNoContent {
		t.Fatalf("the browser's zone: %d", st)
	}
	u, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "ana@example.com")
	if err != nil || u.TimeZone != "Europe/Berlin" {
		t.Fatalf("ana's zone is %q (%v), want Europe/Berlin", u.TimeZone, err)
	}

	st, body, loc := postForm(t, s, ana, "/bookings", url.Values{"gpu_count": {"2"}, "starts_at": {"2027-03-27T20:00"},
		"ends_at": {"2027-03-28T08:00"}, "note": {"over the clock change"}})
	if st != http.StatusSeeOther {
		t.Fatalf("ana books across the DST change: %d %s", st, body)
	}
	var b models.Booking
	if err := s.DB.Bun.NewSelect().Model(&b).Where("user_id = ?", u.ID).Scan(t.Context()); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2027, 3, 27, 19, 0, 0, 0, time.UTC); !b.StartsAt.Equal(want) {
		t.Errorf("starts at %v, want %v", b.StartsAt.UTC(), want)
	}
	if got := b.EndsAt.Sub(b.StartsAt); got != 11*time.Hour {
		t.Errorf("the booking lasts %v, want 11h (the clocks go forward)", got)
	}
	if loc != "/bookings?date=2027-03-27" {
		t.Errorf("sent to %q, want the booking's day", loc)
	}
	page := getPage(t, ana, s.URL+loc)
	for _, want := range []string{
		"Sat 27 Mar 20:00 CET – Sun 28 Mar 08:00 CEST", // the bar's title and the list
		"From (CET)", "Times in Europe/Berlin",
		`data-testid="booking-link"`, "ana · 2 GPUs", "over the clock change",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the week in Berlin lacks %q", want)
		}
	}
	if n := strings.Count(page, `data-testid="capacity-slot"`); n != 14 {
		t.Errorf("%d capacity cells, want 14 half-days", n)
	}
	// Saturday night: 2 of 4 GPUs free in the half-day the booking starts in.
	if !strings.Contains(page, `title="2 of 4 GPUs free, Sat 27 Mar 12:00 – Sun 28 Mar 00:00 CET"`) {
		t.Error("the capacity strip does not count the booking in Saturday afternoon's half-day")
	}
	day := getPage(t, ana, s.URL+"/bookings?view=day&date=2027-03-28")
	if n := strings.Count(day, `class="cg-col`); n != 23 {
		t.Errorf("the day of the change has %d hour columns, want 23", n)
	}
}

// A running job is drawn on its GPU until its expected end, and the
// overview's tile says until when, in the viewer's zone.
func TestCalendarShowsRunningJobs(t *testing.T) {
	t.Parallel()
	s := withNode(t, 2)
	ana := s.Login(t, "ana@example.com")
	u, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := models.SetUserTimeZone(t.Context(), s.DB.Bun, u.ID, "Asia/Tokyo", false); err != nil {
		t.Fatal(err)
	}
	// Pause scheduling so the job stays as set up here.
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	if st, body := s.Do(t, "POST", "/api/v1/orchestrator/stop", adminTok, ""); st != 200 {
		t.Fatalf("pause: %d %s", st, body)
	}
	now := time.Now()
	est := int64(90 * 60)
	j := &models.Job{Name: "train-tokyo", OwnerID: u.ID, GPUCount: 1, Executor: models.ExecutorLease, EstimatedDurationS: &est}
	if err := models.CreateJob(t.Context(), s.DB.Pool, j, now); err != nil {
		t.Fatal(err)
	}
	var gpuID int64
	if err := s.DB.Bun.NewSelect().Table("gpus").Column("id").Order("id").Limit(1).Scan(t.Context(), &gpuID); err != nil {
		t.Fatal(err)
	}
	testdb.Start(t, s.DB, j.ID, []int64{gpuID}, now)
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	end := now.Add(90 * time.Minute).In(tokyo)
	page := getPage(t, ana, s.URL+"/bookings")
	for _, want := range []string{`data-testid="job-link"`, "ana · job", "train-tokyo", "Job #", "JST"} {
		if !strings.Contains(page, want) {
			t.Errorf("the calendar lacks %q", want)
		}
	}
	overview := getPage(t, ana, s.URL+"/")
	if want := "until ~" + localtime.When(end, now, tokyo) + " (in 1h 30m)"; !strings.Contains(overview, want) {
		t.Errorf("the job's tile does not say %q", want)
	}
	if !strings.Contains(overview, "should end") || !strings.Contains(overview, `data-testid="next24"`) {
		t.Error("Next 24 h does not list the job's expected end")
	}
}

// The calendar links its window's export, and the export answers with the
// sheet of those bookings in the viewer's zone.
func TestCalendarLinksExport(t *testing.T) {
	t.Parallel()
	s := withNode(t, 2)
	ana := s.Login(t, "ana@example.com")
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	if st, body, _ := postForm(t, s, ana, "/bookings", url.Values{"gpu_count": {"1"}, "note": {"exported"},
		"starts_at": {day.Add(9 * time.Hour).Format("2006-01-02T15:04")}, "ends_at": {day.Add(11 * time.Hour).Format("2006-01-02T15:04")}}); st != http.StatusSeeOther {
		t.Fatalf("book: %d %s", st, body)
	}
	page := getPage(t, ana, s.URL+"/bookings")
	i := strings.Index(page, `data-testid="export-csv"`)
	if i < 0 {
		t.Fatal("no export link on the calendar")
	}
	j := strings.LastIndex(page[:i], `href="`)
	href := strings.ReplaceAll(page[j+len(`href="`):j+strings.Index(page[j:], `" `)], "&amp;", "&")
	sheet := getPage(t, ana, s.URL+href)
	if !strings.Contains(sheet, "exported") || !strings.Contains(sheet, "ana@example.com") {
		t.Errorf("the export of the week lacks the booking:\n%s", sheet)
	}
}
