package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Quiet hours set through the API are read on the clock of
// quiet_time_zone (UTC when left out, as before); the settings page shows
// them on the viewer's clock.
func TestQuietHoursAPIZone(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, u := s.UserToken(t, models.RoleMember)
	put := func(body string) (int, handlers.PrefsJSON, string) {
		st, b := s.Do(t, "PUT", "/api/v1/me/notifications", tok, body)
		var p handlers.PrefsJSON
		if st == http.StatusOK {
			mustJSON(t, b, &p)
		}
		return st, p, string(b)
	}
	if st, p, b := put(`{"events":{},"quiet_start":"22:00","quiet_end":"07:00","quiet_time_zone":"Europe/Berlin"}`); st != http.StatusOK ||
		p.QuietStart != "22:00" || p.QuietTimeZone != "Europe/Berlin" {
		t.Errorf("Berlin's quiet hours: %d %s", st, b)
	}
	if st, _, b := put(`{"events":{},"quiet_start":"22:00","quiet_end":"07:00","quiet_time_zone":"Mars/Olympus"}`); st != http.StatusBadRequest ||
		!strings.Contains(b, "quiet_time_zone") {
		t.Errorf("an unknown zone: %d %s, want 400 naming quiet_time_zone", st, b)
	}
	st, p, b := put(`{"events":{},"quiet_start":"22:00","quiet_end":"07:00"}`)
	if st != http.StatusOK || p.QuietTimeZone != "UTC" {
		t.Fatalf("quiet hours without a zone: %d %s, want UTC", st, b)
	}
	if _, err := models.SetUserTimeZone(t.Context(), s.DB.Bun, u.ID, "Europe/Berlin", false); err != nil {
		t.Fatal(err)
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	now := time.Now().UTC()
	want := time.Date(now.Year(), now.Month(), now.Day(), 22, 0, 0, 0, time.UTC).In(berlin).Format("15:04")
	page := getPage(t, s.Login(t, u.Email), s.URL+"/settings/notifications")
	if !strings.Contains(page, fmt.Sprintf(`name="quiet_start" type="time" value="%s"`, want)) {
		t.Errorf("22:00 UTC should show as %s on a Berlin viewer's form", want)
	}
}
