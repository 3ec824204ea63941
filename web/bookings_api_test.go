package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// window returns a booking body's window: tomorrow from hour from to hour to (UTC).
func window(from, to int) (string, string) {
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	return day.Add(time.Duration(from) * time.Hour).Format(time.RFC3339), day.Add(time.Duration(to) * time.Hour).Format(time.RFC3339)
}

func bookingBody(count int, from, to int) string {
	s, e := window(from, to)
	return fmt.Sprintf(`{"gpu_count":%d,"gpu_model":"H100","starts_at":%q,"ends_at":%q}`, count, s, e)
}

// Bad booking requests are refused with the right status and a sentence
// that says what is wrong, and nothing is written.
func TestBookingValidation(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, _ := s.UserToken(t, models.RoleMember)
	s9, e10 := window(9, 10)
	past := time.Now().Add(-2 * time.Hour).UTC().Format(time.RFC3339)
	far := time.Now().Add(40 * 24 * time.Hour).UTC().Format(time.RFC3339)
	farEnd := time.Now().Add(40*24*time.Hour + time.Hour).UTC().Format(time.RFC3339)
	tests := map[string]struct {
		body   string
		status int
		code   string
		says   string
	}{
		"not JSON":          {`{`, 400, "invalid_json", "malformed"},
		"unknown field":     {`{"gpus":2}`, 400, "unknown_field", "gpus"},
		"no window":         {`{"gpu_count":1}`, 400, "invalid_field", "starts_at and ends_at are required"},
		"no GPUs":           {fmt.Sprintf(`{"starts_at":%q,"ends_at":%q}`, s9, e10), 400, "invalid_field", "gpu_count"},
		"count and ids":     {fmt.Sprintf(`{"gpu_count":3,"gpu_ids":[1,2],"starts_at":%q,"ends_at":%q}`, s9, e10), 400, "invalid_field", "names 2 GPUs"},
		"same GPU twice":    {fmt.Sprintf(`{"gpu_ids":[1,1],"starts_at":%q,"ends_at":%q}`, s9, e10), 400, "invalid_field", "twice"},
		"ends before start": {fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q}`, e10, s9), 422, "invalid_window", "must end after it starts"},
		"in the past":       {fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q}`, past, e10), 422, "invalid_window", "starts in the past"},
		"too many GPUs":     {bookingBody(9, 9, 10), 422, "booking_too_large", "at most 8 GPUs"},
		"too long":          {bookingBody(1, 0, 80), 422, "booking_too_long", "at most 72h"},
		"too far ahead":     {fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q}`, far, farEnd), 422, "booking_too_far", "30 days ahead"},
		"unknown type":      {fmt.Sprintf(`{"gpu_count":1,"gpu_model":"MI300","starts_at":%q,"ends_at":%q}`, s9, e10), 422, "no_such_gpus", "the cluster has 0 MI300 GPUs"},
		"unknown GPU":       {fmt.Sprintf(`{"gpu_ids":[99999],"starts_at":%q,"ends_at":%q}`, s9, e10), 422, "no_such_gpus", "does not exist"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, body := s.Do(t, "POST", "/api/v1/bookings", tok, tc.body)
			if st != tc.status {
				t.Fatalf("status %d, want %d: %s", st, tc.status, body)
			}
			msg, code := testserver.APIError(t, body)
			if code != tc.code || !strings.Contains(msg, tc.says) {
				t.Errorf("error %q (%s), want code %s saying %q", msg, code, tc.code, tc.says)
			}
		})
	}
	n, err := s.DB.Bun.NewSelect().Model((*models.Booking)(nil)).Count(t.Context())
	if err != nil || n != 0 {
		t.Fatalf("bookings written by refused requests: %d (%v)", n, err)
	}
}

// Two users book from one pool of 8 GPUs: what fits is accepted, what
// clashes is refused with 409 naming who holds the GPUs and when; named
// GPUs clash with named GPUs; cancel frees them; only the owner or an
// admin may cancel.
func TestBookingClashAndCancel(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, anaUser := s.UserToken(t, models.RoleMember)
	bo, _ := s.UserToken(t, models.RoleMember)
	admin, _ := s.UserToken(t, models.RoleAdmin)

	st, body := s.Do(t, "POST", "/api/v1/bookings", ana, bookingBody(6, 9, 17))
	if st != 201 {
		t.Fatalf("ana books 6: %d %s", st, body)
	}
	var first api.Booking
	mustJSON(t, body, &first)
	if diff := cmp.Diff(api.Booking{Kind: "booking", User: anaUser.Email, GPUCount: 6, GPUModel: "H100", State: "upcoming"},
		first, cmpIgnoreBookingIDs); diff != "" {
		t.Errorf("booking (-want +got):\n%s", diff)
	}
	// 2 more fit beside it; a third does not, and the refusal names ana's booking.
	if st, body := s.Do(t, "POST", "/api/v1/bookings", bo, bookingBody(2, 12, 20)); st != 201 {
		t.Fatalf("bo books the 2 left: %d %s", st, body)
	}
	st, body = s.Do(t, "POST", "/api/v1/bookings", bo, bookingBody(1, 16, 18))
	if st != http.StatusConflict {
		t.Fatalf("a ninth GPU: %d %s", st, body)
	}
	msg, code := testserver.APIError(t, body)
	for _, want := range []string{anaUser.Email + "'s booking #", "6 H100 GPUs", "09:00–17:00 UTC", "1 H100 GPU is not free"} {
		if code != "booking_clash" || !strings.Contains(msg, want) {
			t.Errorf("clash message %q (%s) lacks %q", msg, code, want)
		}
	}
	// After ana's window the GPUs are free again.
	if st, body := s.Do(t, "POST", "/api/v1/bookings", bo, bookingBody(6, 20, 23)); st != 201 {
		t.Fatalf("bo books after ana: %d %s", st, body)
	}

	// Bo may not cancel ana's booking; an admin may.
	path := fmt.Sprintf("/api/v1/bookings/%d", first.ID)
	if st, body := s.Do(t, "DELETE", path, bo, ""); st != http.StatusForbidden {
		t.Fatalf("bo cancels ana's booking: %d %s", st, body)
	}
	if st, body := s.Do(t, "DELETE", path, admin, ""); st != 200 || !contains(body, `"state":"canceled"`) {
		t.Fatalf("admin cancels ana's booking: %d %s", st, body)
	}
	if st, body := s.Do(t, "DELETE", path, ana, ""); st != http.StatusConflict {
		t.Fatalf("cancel twice: %d %s", st, body)
	}
	if st, body := s.Do(t, "DELETE", "/api/v1/bookings/999999", ana, ""); st != http.StatusNotFound {
		t.Fatalf("cancel a missing booking: %d %s", st, body)
	}
	if st, body := s.Do(t, "POST", "/api/v1/bookings", bo, bookingBody(1, 16, 18)); st != 201 {
		t.Fatalf("after the cancel the GPU is free: %d %s", st, body)
	}

	// Named GPUs clash with named GPUs.
	ids := gpuIDs(t, s)
	s9, e10 := window(2, 3)
	named := fmt.Sprintf(`{"gpu_ids":[%d,%d],"starts_at":%q,"ends_at":%q}`, ids[0], ids[1], s9, e10)
	if st, body := s.Do(t, "POST", "/api/v1/bookings", ana, named); st != 201 {
		t.Fatalf("ana books GPUs %d,%d: %d %s", ids[0], ids[1], st, body)
	}
	st, body = s.Do(t, "POST", "/api/v1/bookings", bo, fmt.Sprintf(`{"gpu_ids":[%d],"starts_at":%q,"ends_at":%q}`, ids[1], s9, e10))
	if msg, _ := testserver.APIError(t, body); st != 409 || !strings.Contains(msg, "gpu-a:1") || !strings.Contains(msg, anaUser.Email) {
		t.Fatalf("bo books one of them: %d %s", st, body)
	}

	// Everyone sees every booking; mine=1 narrows to one's own.
	from := time.Now().UTC().Format(time.RFC3339)
	_, body = s.Do(t, "GET", "/api/v1/bookings?from="+from, bo, "")
	var all struct{ Bookings []api.Booking }
	mustJSON(t, body, &all)
	_, body = s.Do(t, "GET", "/api/v1/bookings?mine=1&from="+from, ana, "")
	var mine struct{ Bookings []api.Booking }
	mustJSON(t, body, &mine)
	if len(all.Bookings) != 4 || len(mine.Bookings) != 1 {
		t.Fatalf("listed %d live bookings (want 4) and %d of ana's (want 1)", len(all.Bookings), len(mine.Bookings))
	}
}

var cmpIgnoreBookingIDs = cmp.FilterPath(func(p cmp.Path) bool {
	switch p.Last().String() {
	case ".ID", ".StartsAt", ".EndsAt", ".CreatedAt", ".UpdatedAt":
		return true
	}
	return false
}, cmp.Ignore())

func gpuIDs(t *testing.T, s *testserver.Server) []int64 {
	t.Helper()
	var ids []int64
	if err := s.DB.Bun.NewSelect().Model((*models.GPU)(nil)).Column("id").OrderExpr("id").Scan(t.Context(), &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// Concurrent requests for the same GPUs: exactly as many succeed as fit,
// the rest are refused as clashes (the creation lock serializes them).
func TestBookingConcurrent(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	const users = 12
	toks := make([]string, users)
	for i := range toks {
		toks[i], _ = s.UserToken(t, models.RoleMember)
	}
	var wg sync.WaitGroup
	statuses := make([]int, users)
	for i := range users {
		wg.Go(func() { statuses[i], _ = s.Do(t, "POST", "/api/v1/bookings", toks[i], bookingBody(2, 9, 12)) })
	}
	wg.Wait()
	got := map[int]int{}
	for _, st := range statuses {
		got[st]++
	}
	if diff := cmp.Diff(map[int]int{201: 4, 409: 8}, got); diff != "" {
		t.Fatalf("statuses of 12 concurrent 2-GPU bookings on 8 GPUs (-want +got):\n%s", diff)
	}
}

// A retry with the same Idempotency-Key gets the same booking, not a clash
// with itself.
func TestBookingIdempotent(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, _ := s.UserToken(t, models.RoleMember)
	st1, b1 := doKey(t, s, "POST", "/api/v1/bookings", tok, "retry-1", bookingBody(8, 9, 10))
	st2, b2 := doKey(t, s, "POST", "/api/v1/bookings", tok, "retry-1", bookingBody(8, 9, 10))
	if st1 != 201 || st2 != 201 || string(b1) != string(b2) {
		t.Fatalf("a retried booking: %d %s, then %d %s", st1, b1, st2, b2)
	}
}

// The per-user limit of live bookings is enforced.
func TestBookingLiveLimit(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, _ := s.UserToken(t, models.RoleMember)
	for i := range 5 {
		if st, body := s.Do(t, "POST", "/api/v1/bookings", tok, bookingBody(1, i, i+1)); st != 201 {
			t.Fatalf("booking %d: %d %s", i, st, body)
		}
	}
	st, body := s.Do(t, "POST", "/api/v1/bookings", tok, bookingBody(1, 6, 7))
	if msg, code := testserver.APIError(t, body); st != 409 || code != "booking_limit" || !strings.Contains(msg, "the most allowed is 5") {
		t.Fatalf("a sixth booking: %d %s", st, body)
	}
}

// Named GPUs and counts share one pool: with 6 of 8 GPUs booked by count
// and 2 more by name, a ninth is refused, and the message names both; the
// GPUs a count keeps are the same over its whole window.
func TestBookingNamedAndCountShareThePool(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, anaUser := s.UserToken(t, models.RoleMember)
	bo, boUser := s.UserToken(t, models.RoleMember)
	cy, _ := s.UserToken(t, models.RoleMember)
	if st, body := s.Do(t, "POST", "/api/v1/bookings", ana, bookingBody(6, 9, 17)); st != 201 {
		t.Fatalf("ana books 6: %d %s", st, body)
	}
	ids := gpuIDs(t, s)
	from, to := window(10, 12)
	if st, body := s.Do(t, "POST", "/api/v1/bookings", bo, fmt.Sprintf(`{"gpu_ids":[%d,%d],"starts_at":%q,"ends_at":%q}`, ids[6], ids[7], from, to)); st != 201 {
		t.Fatalf("bo books 2 named GPUs: %d %s", st, body)
	}
	// A named GPU that ana's count still leaves room for is refused too: 6 by count need 6 of the other GPUs.
	st, body := s.Do(t, "POST", "/api/v1/bookings", cy, fmt.Sprintf(`{"gpu_ids":[%d],"starts_at":%q,"ends_at":%q}`, ids[0], from, to))
	msg, code := testserver.APIError(t, body)
	if st != 409 || code != "booking_clash" || !strings.Contains(msg, anaUser.Email) || !strings.Contains(msg, boUser.Email) {
		t.Fatalf("a ninth GPU by name: %d %s", st, body)
	}
	// A booking keeps the same GPUs all its window: ana's 6 keep off bo's 2
	// all day, so after bo's window one of bo's GPUs fits by name, and none
	// of ana's does, though only 7 of the 8 GPUs are booked then.
	from, to = window(13, 14)
	if st, body := s.Do(t, "POST", "/api/v1/bookings", cy, fmt.Sprintf(`{"gpu_ids":[%d],"starts_at":%q,"ends_at":%q}`, ids[6], from, to)); st != 201 {
		t.Fatalf("one of bo's GPUs by name after bo's window: %d %s", st, body)
	}
	st, body = s.Do(t, "POST", "/api/v1/bookings", cy, fmt.Sprintf(`{"gpu_ids":[%d],"starts_at":%q,"ends_at":%q}`, ids[0], from, to))
	if msg, code := testserver.APIError(t, body); st != 409 || code != "booking_clash" || !strings.Contains(msg, anaUser.Email) {
		t.Fatalf("one of ana's GPUs by name after bo's window: %d %s", st, body)
	}
}
