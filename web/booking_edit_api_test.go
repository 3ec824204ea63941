package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// calBook creates a booking through the API and returns it.
func calBook(t *testing.T, s *testserver.Server, tok, body string) api.Booking {
	t.Helper()
	st, b := s.Do(t, "POST", "/api/v1/bookings", tok, body)
	if st != 201 {
		t.Fatalf("book %s: %d %s", body, st, b)
	}
	var out api.Booking
	mustJSON(t, b, &out)
	return out
}

// Edits follow the creation rules: extending into a colleague's booking is
// a 409 naming it; bad fields are 400/422 naming the field; only the owner
// or an admin (audited) may edit; an edit bumps the sequence.
func TestBookingEdit(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, _ := s.UserToken(t, models.RoleMember)
	bo, boUser := s.UserToken(t, models.RoleMember)
	admin, adminUser := s.UserToken(t, models.RoleAdmin)
	mine := calBook(t, s, ana, bookingBody(6, 9, 12))
	theirs := calBook(t, s, bo, bookingBody(4, 13, 17))
	path := fmt.Sprintf("/api/v1/bookings/%d", mine.ID)
	_, e14 := window(0, 14)
	_, e13 := window(0, 13)

	st, body := s.Do(t, "PATCH", path, ana, fmt.Sprintf(`{"ends_at":%q}`, e14))
	msg, code := testserver.APIError(t, body)
	want := fmt.Sprintf("%s's booking #%d of 4 H100 GPUs", boUser.Email, theirs.ID)
	if st != http.StatusConflict || code != "booking_clash" || !strings.Contains(msg, want) || !strings.Contains(msg, "13:00–17:00 UTC") {
		t.Fatalf("extend into bo's booking: %d %s, want 409 naming %q", st, body, want)
	}
	st, body = s.Do(t, "PATCH", path, ana, fmt.Sprintf(`{"ends_at":%q,"note":"  longer run "}`, e13))
	var got api.Booking
	mustJSON(t, body, &got)
	if st != 200 || got.EndsAt.Format(time.RFC3339) != e13 || got.Note != "longer run" || got.Sequence != 1 {
		t.Fatalf("extend to 13:00: %d %s", st, body)
	}

	s9, _ := window(9, 10)
	tests := map[string]struct {
		tok, body string
		status    int
		says      string
	}{
		"empty":          {ana, `{}`, 400, "give at least one"},
		"unknown field":  {ana, `{"gpus":2}`, 400, "gpus"},
		"zero GPUs":      {ana, `{"gpu_count":0}`, 400, "gpu_count: must be at least 1"},
		"too many GPUs":  {ana, `{"gpu_count":9}`, 422, "gpu_count: one booking may take at most 8"},
		"end before":     {ana, fmt.Sprintf(`{"ends_at":%q}`, s9), 422, "ends_at: the booking must end after it starts"},
		"GPU twice":      {ana, `{"gpu_ids":[1,1]}`, 400, "gpu_ids: names a GPU twice"},
		"not the owner":  {bo, `{"note":"mine now"}`, 403, "only its owner or an admin"},
		"more than fits": {ana, fmt.Sprintf(`{"gpu_count":5,"ends_at":%q}`, e14), 409, "clashes with"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, body := s.Do(t, "PATCH", path, tc.tok, tc.body)
			if msg, _ := testserver.APIError(t, body); st != tc.status || !strings.Contains(msg, tc.says) {
				t.Errorf("%d %s, want %d saying %q", st, body, tc.status, tc.says)
			}
		})
	}
	if st, body := s.Do(t, "PATCH", path, admin, `{"note":"moved by admin"}`); st != 200 || !contains(body, `"sequence":2`) {
		t.Fatalf("admin edits ana's booking: %d %s", st, body)
	}
	var entry models.AuditEntry
	if err := s.DB.Bun.NewSelect().Model(&entry).Where("action = 'booking.edit'").Where("actor_user_id = ?", adminUser.ID).
		Scan(t.Context()); err != nil || entry.Details["by_admin"] != true {
		t.Fatalf("admin's edit audited: %+v %v", entry, err)
	}
	if st, body := s.Do(t, "GET", path, bo, ""); st != 200 || !contains(body, `"note":"moved by admin"`) {
		t.Fatalf("get: %d %s", st, body)
	}
	// The owner is told (booking.clashed), in the app at least; her own edits told nobody.
	if st, body := s.Do(t, "GET", "/api/v1/notifications", ana, ""); st != 200 || strings.Count(string(body), `"channel_type":"in_app","event":"booking.clashed"`) != 1 {
		t.Fatalf("ana's notifications after the admin's edit: %d %s, want one booking.clashed", st, body)
	}
}

// "I'm done early": ending an active booking frees its GPUs at once and the
// queued job it kept waiting starts; an upcoming booking is canceled, not
// ended.
func TestBookingEndStartsTheNextJob(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, _ := s.UserToken(t, models.RoleMember)
	bo, _ := s.UserToken(t, models.RoleMember)
	now := time.Now().UTC()
	b := calBook(t, s, ana, fmt.Sprintf(`{"gpu_count":8,"starts_at":%q,"ends_at":%q}`,
		now.Format(time.RFC3339), now.Add(3*time.Hour).Format(time.RFC3339)))
	st, body := s.Do(t, "POST", "/api/v1/queue/submit", bo, `{"gpu_count":2,"executor":"lease","name":"after-ana"}`)
	if st != 201 {
		t.Fatalf("submit: %d %s", st, body)
	}
	var job struct {
		ID int64 `json:"id"`
	}
	mustJSON(t, body, &job)
	jobState := func() string {
		var state string
		_ = s.DB.Bun.NewSelect().Model((*models.Job)(nil)).Column("state").Where("id = ?", job.ID).Scan(t.Context(), &state)
		return state
	}
	waitFor(t, "a scheduling pass over bo's job", func() bool { return jobState() != "queued" || explained(t, s, job.ID) })
	if st := jobState(); st != "queued" {
		t.Fatalf("bo's job is %s while ana books every GPU, want queued", st)
	}
	path := fmt.Sprintf("/api/v1/bookings/%d/end", b.ID)
	if st, body := s.Do(t, "POST", path, bo, ""); st != http.StatusForbidden {
		t.Fatalf("bo ends ana's booking: %d %s", st, body)
	}
	st, body = doKey(t, s, "POST", path, ana, "end-1", "")
	if st != 200 || !contains(body, `"state":"ended"`) {
		t.Fatalf("end: %d %s", st, body)
	}
	if st, again := doKey(t, s, "POST", path, ana, "end-1", ""); st != 200 || string(again) != string(body) {
		t.Fatalf("end retried with its Idempotency-Key: %d %s", st, again)
	}
	waitFor(t, "bo's job to start", func() bool { return jobState() != "queued" })
	if st, body := s.Do(t, "POST", path, ana, ""); st != http.StatusConflict {
		t.Fatalf("end twice: %d %s", st, body)
	}
	later := calBook(t, s, ana, bookingBody(1, 9, 10))
	st, body = s.Do(t, "POST", fmt.Sprintf("/api/v1/bookings/%d/end", later.ID), ana, "")
	if msg, _ := testserver.APIError(t, body); st != http.StatusConflict || !strings.Contains(msg, "cancel it instead") {
		t.Fatalf("end an upcoming booking: %d %s", st, body)
	}
}

// An edit can name GPUs instead of a count, and go back to a count; named
// GPUs clash with named GPUs.
func TestBookingEditNamedGPUs(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, _ := s.UserToken(t, models.RoleMember)
	bo, boUser := s.UserToken(t, models.RoleMember)
	ids := gpuIDs(t, s)
	s9, e10 := window(9, 10)
	theirs := calBook(t, s, bo, fmt.Sprintf(`{"gpu_ids":[%d],"starts_at":%q,"ends_at":%q}`, ids[2], s9, e10))
	mine := calBook(t, s, ana, bookingBody(2, 9, 10))
	path := fmt.Sprintf("/api/v1/bookings/%d", mine.ID)
	st, body := s.Do(t, "PATCH", path, ana, fmt.Sprintf(`{"gpu_ids":[%d,%d]}`, ids[0], ids[1]))
	var got api.Booking
	mustJSON(t, body, &got)
	if st != 200 || len(got.GPUIDs) != 2 || got.GPUCount != 2 || got.GPUModel != "" {
		t.Fatalf("name GPUs: %d %s", st, body)
	}
	st, body = s.Do(t, "PATCH", path, ana, fmt.Sprintf(`{"gpu_ids":[%d,%d]}`, ids[1], ids[2]))
	if msg, _ := testserver.APIError(t, body); st != 409 || !strings.Contains(msg, fmt.Sprintf("%s's booking #%d", boUser.Email, theirs.ID)) {
		t.Fatalf("name bo's GPU: %d %s", st, body)
	}
	if st, body := s.Do(t, "PATCH", path, ana, `{"gpu_count":3}`); st != 400 || !contains(body, "gpu_ids") {
		t.Fatalf("a count on a booking of named GPUs: %d %s", st, body)
	}
	st, body = s.Do(t, "PATCH", path, ana, `{"gpu_ids":[],"gpu_count":3}`)
	got = api.Booking{}
	mustJSON(t, body, &got)
	if st != 200 || len(got.GPUIDs) != 0 || got.GPUCount != 3 {
		t.Fatalf("back to a count: %d %s", st, body)
	}
}
