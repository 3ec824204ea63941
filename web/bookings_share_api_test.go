package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// shareBody is a booking body of share of a GPU tomorrow 9–12 UTC, of the
// GPU gpu names ("" any shared GPU).
func shareBody(share float64, gpu string) string {
	s, e := window(9, 12)
	ids := ""
	if gpu != "" {
		ids = fmt.Sprintf(`,"gpu_ids":[%q]`, gpu)
	}
	return fmt.Sprintf(`{"gpu_share":%g%s,"starts_at":%q,"ends_at":%q}`, share, ids, s, e)
}

// Bookings of part of a shared GPU: by node:index or of any shared GPU;
// they are answered with their share and the GPU's one name; a share more
// than the slots left of a GPU is a 409 that names the GPU and who holds
// it; bad shares are 400s and a GPU that is not shared a 422 naming it.
func TestBookingSharesOfASharedGPU(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	node, _ := testdb.SharedNode(t, s.DB, 2, 4)
	gpu0 := node.Name + ":0"
	ana, _ := s.UserToken(t, models.RoleMember)
	bo, _ := s.UserToken(t, models.RoleMember)

	st, body := s.Do(t, "POST", "/api/v1/bookings", ana, shareBody(0.5, gpu0))
	if st != 201 {
		t.Fatalf("half of %s: %d %s", gpu0, st, body)
	}
	var b api.Booking
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	if b.GPUShare != 0.5 || b.GPUCount != 1 || len(b.GPUNames) != 1 || b.GPUNames[0] != gpu0 || len(b.GPUIDs) != 4 {
		t.Errorf("booking: %+v, want 0.5 of %s (its 4 slots)", b, gpu0)
	}
	st, body = s.Do(t, "POST", "/api/v1/bookings", bo, shareBody(0.75, gpu0))
	if st != 409 || !strings.Contains(string(body), "booking_clash") || !strings.Contains(string(body), "0.75 of "+gpu0+" is not free") ||
		!strings.Contains(string(body), "of 0.5 of "+gpu0) {
		t.Errorf("0.75 of %s beside half of it: %d %s, want a 409 naming the GPU and the rival", gpu0, st, body)
	}
	if st, body = s.Do(t, "POST", "/api/v1/bookings", bo, shareBody(0.5, gpu0)); st != 201 {
		t.Errorf("the other half of %s: %d %s", gpu0, st, body)
	}
	if st, body = s.Do(t, "POST", "/api/v1/bookings", bo, shareBody(1, "")); st != 201 {
		t.Errorf("a whole shared GPU (the other): %d %s", st, body)
	}
	st, body = s.Do(t, "POST", "/api/v1/bookings", ana, shareBody(0.25, ""))
	if st != 409 || !strings.Contains(string(body), "0.25 of a shared GPU is not free") {
		t.Errorf("a quarter when every slot is booked: %d %s, want a 409", st, body)
	}

	later, laterEnd := window(13, 15)
	if st, body = s.Do(t, "PATCH", fmt.Sprintf("/api/v1/bookings/%d", b.ID), ana, fmt.Sprintf(`{"starts_at":%q,"ends_at":%q}`, later, laterEnd)); st != 200 ||
		!strings.Contains(string(body), `"gpu_share":0.5`) || !strings.Contains(string(body), `"gpu_count":1`) {
		t.Errorf("move half of %s later: %d %s", gpu0, st, body)
	}
	if st, body = s.Do(t, "PATCH", fmt.Sprintf("/api/v1/bookings/%d", b.ID), ana, `{"gpu_count":2}`); st != 422 || !strings.Contains(string(body), "its GPU cannot change") {
		t.Errorf("change a share's GPUs: %d %s, want a 422", st, body)
	}

	for name, tc := range map[string]struct {
		body   string
		status int
		says   string
	}{
		"share above 1":     {shareBody(1.5, ""), 400, "at most 1 GPU"},
		"negative share":    {shareBody(-0.5, ""), 400, "more than 0"},
		"share of two":      {strings.Replace(shareBody(0.5, ""), "{", `{"gpu_count":2,`, 1), 400, "part of one GPU"},
		"two GPUs named":    {strings.Replace(shareBody(0.5, gpu0), `"]`, `","`+node.Name+`:1"]`, 1), 400, "names 2 GPUs"},
		"no such GPU":       {shareBody(0.5, node.Name+":7"), 422, "no GPU " + node.Name + ":7"},
		"no shared of type": {strings.Replace(shareBody(0.5, ""), "{", `{"gpu_model":"A100",`, 1), 422, "no shared A100 GPU can hold 0.5"},
	} {
		st, body := s.Do(t, "POST", "/api/v1/bookings", ana, tc.body)
		if st != tc.status || !strings.Contains(string(body), tc.says) {
			t.Errorf("%s: %d %s, want %d saying %q", name, st, body, tc.status, tc.says)
		}
	}
}
