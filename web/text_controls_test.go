package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
)

// A CR (or any control character) in a booking note is refused at the
// edge, by the API and by the form; a note that is already stored with one
// no longer breaks the booking's ICS export or the team feed.
func TestBookingNoteControlCharacters(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana := s.Login(t, "ana@example.com")
	tok, _ := s.UserToken(t, "member")
	from := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
	for _, note := range []string{"a\rb", "a\nb", "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", "tab\there"} {
		quoted, _ := json.Marshal(note)
		body := fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q,"note":%s}`,
			from.Format(time.RFC3339), from.Add(time.Hour).Format(time.RFC3339), quoted)
		st, b := s.Do(t, "POST", "/api/v1/bookings", tok, body)
		if st != http.StatusBadRequest || !strings.Contains(string(b), `"invalid_text"`) || !strings.Contains(string(b), `note`) {
			t.Errorf("API note %q: %d %s, want a 400 naming the note", note, st, b)
		}
		st, _, _ = postForm(t, s, ana, "/bookings", url.Values{"gpu_count": {"1"}, "note": {note},
			"starts_at": {from.Format("2006-01-02T15:04")}, "ends_at": {from.Add(time.Hour).Format("2006-01-02T15:04")}})
		if st != http.StatusBadRequest {
			t.Errorf("form note %q: %d, want 400", note, st)
		}
	}
	var n int
	if err := s.DB.Bun.NewRaw("SELECT count(*) FROM bookings").Scan(context.Background(), &n); err != nil || n != 0 {
		t.Fatalf("%d bookings written (%v), want none", n, err)
	}

	// A note stored before the edge refused it.
	id := calSeed(t, s, calUserID(t, s, "ana@example.com"), 1, 9, 10)
	if _, err := s.DB.Bun.NewRaw("UPDATE bookings SET note = ? WHERE id = ?", "first\rsecond\x1b[2J", id).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	resp, err := ana.Get(fmt.Sprintf("%s/bookings/%d/export.ics", s.URL, id))
	if err != nil {
		t.Fatal(err)
	}
	ics := readAll(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ICS export: %d %s", resp.StatusCode, ics)
	}
	if _, err := ical.NewDecoder(bytes.NewReader(ics)).Decode(); err != nil || bytes.ContainsAny(ics, "\x1b") {
		t.Fatalf("ICS export does not parse (%v) or holds the escape:\n%s", err, ics)
	}
	st, html, _ := postForm(t, s, ana, "/settings/feeds/team/regenerate", url.Values{})
	m := feedURL.FindStringSubmatch(html)
	if st != http.StatusCreated || m == nil {
		t.Fatalf("regenerate the team feed: %d", st)
	}
	if st, ev := feedEvents(t, m[1]); st != http.StatusOK || ev[fmt.Sprintf("booking-%d@gpuscheduler", id)] == "" {
		t.Fatalf("team feed: %d %v", st, ev)
	}
}
