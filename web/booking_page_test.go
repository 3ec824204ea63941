package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// calUserID returns the id of the user with email.
func calUserID(t testing.TB, s *testserver.Server, email string) int64 {
	t.Helper()
	var id int64
	if err := s.DB.Bun.NewSelect().Model((*models.User)(nil)).Column("id").Where("email = ?", email).Scan(context.Background(), &id); err != nil {
		t.Fatalf("user %s: %v", email, err)
	}
	return id
}

// calSeed writes a booking of count H100 GPUs for user, tomorrow from
// hour from to hour to (UTC), through the model.
func calSeed(t testing.TB, s *testserver.Server, user int64, count, from, to int) int64 {
	t.Helper()
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	b := &models.Booking{UserID: user, GPUCount: count, GPUModel: "H100", StartsAt: day.Add(time.Duration(from) * time.Hour),
		EndsAt: day.Add(time.Duration(to) * time.Hour), Source: "test"}
	err := s.DB.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
		return models.CreateBooking(ctx, tx, b, nil, 0, time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.ID
}

func calGet(t testing.TB, s *testserver.Server, c *http.Client, path string) (int, string) {
	t.Helper()
	resp, err := c.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The booking page edits without JavaScript: extending into a colleague's
// booking is refused with 409 and a link to it; "Extend 1h" works; another
// member may look but not change it.
func TestBookingPageEdit(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, bo := s.Login(t, "ana@example.com"), s.Login(t, "bo@example.com")
	mine := calSeed(t, s, calUserID(t, s, "ana@example.com"), 6, 9, 12)
	theirs := calSeed(t, s, calUserID(t, s, "bo@example.com"), 4, 13, 17)
	page := fmt.Sprintf("/bookings/%d", mine)

	st, html := calGet(t, s, ana, page)
	for _, want := range []string{"Booking #", "ana@example.com", "6 × H100", "09:00–12:00 UTC", `data-testid="edit-form"`} {
		if st != 200 || !strings.Contains(html, want) {
			t.Fatalf("page: %d, lacks %q", st, want)
		}
	}
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	st, html, _ = postForm(t, s, ana, page+"/edit", url.Values{"starts_at": {day.Add(9 * time.Hour).Format("2006-01-02T15:04")},
		"ends_at": {day.Add(14 * time.Hour).Format("2006-01-02T15:04")}, "gpu_count": {"6"}, "note": {"longer"}})
	for _, want := range []string{"bo@example.com", fmt.Sprintf(`href="/bookings/%d"`, theirs), "13:00–17:00 UTC", "not free at"} {
		if st != http.StatusConflict || !strings.Contains(html, want) {
			t.Fatalf("edit into bo's booking: %d, lacks %q", st, want)
		}
	}
	if st, _, loc := postForm(t, s, ana, page+"/edit", url.Values{"extend": {"1h"}}); st != 303 || loc != page+"?done=edited" {
		t.Fatalf("extend 1h: %d → %s", st, loc)
	}
	if _, html := calGet(t, s, ana, page+"?done=edited"); !strings.Contains(html, "09:00–13:00 UTC") || !strings.Contains(html, "Saved.") {
		t.Fatalf("after extending: %s", html)
	}
	if st, _, _ := postForm(t, s, bo, page+"/edit", url.Values{"extend": {"1h"}}); st != http.StatusForbidden {
		t.Fatalf("bo extends ana's booking: %d", st)
	}
	if st, html := calGet(t, s, bo, page); st != 200 || strings.Contains(html, `data-testid="edit-form"`) {
		t.Fatalf("bo sees ana's booking (%d) with an edit form", st)
	}
}

// An active booking started at an odd second is saved from its form (the
// form shows minutes) without its start counting as moved into the past.
func TestBookingPageEditActive(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana := s.Login(t, "ana@example.com")
	now := time.Now().UTC()
	b := &models.Booking{UserID: calUserID(t, s, "ana@example.com"), Kind: models.BookingKindBooking, GPUCount: 1,
		StartsAt: now.Add(-10*time.Minute - 17*time.Second), EndsAt: now.Add(time.Hour), Source: "test"}
	if _, err := s.DB.Bun.NewInsert().Model(b).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, _, loc := postForm(t, s, ana, fmt.Sprintf("/bookings/%d/edit", b.ID), url.Values{"starts_at": {b.StartsAt.Format("2006-01-02T15:04")},
		"ends_at": {now.Add(2 * time.Hour).Format("2006-01-02T15:04")}, "gpu_count": {"1"}, "note": {"still going"}})
	if st != 303 || !strings.HasSuffix(loc, "?done=edited") {
		t.Fatalf("save an active booking's form: %d → %s", st, loc)
	}
}
