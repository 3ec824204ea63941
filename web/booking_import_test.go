package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// importSheet is a sheet for tomorrow in Europe/Berlin: two good rows and
// five bad ones, one of each kind.
func importSheet(ana, bo string) string {
	d := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	return strings.Join([]string{
		"email,gpus,gpu_model,node,gpu_ids,start,end,note",
		fmt.Sprintf("%s,4,H100,,,%s 09:00,%s 18:00,from the sheet", ana, d, d),
		fmt.Sprintf("%s,,,gpu-a,0;1,%s 10:00,%s 12:00,", bo, d, d),
		fmt.Sprintf("%s,3,H100,,,%s 11:00,%s 13:00,too many", ana, d, d),
		fmt.Sprintf("nobody@example.com,1,,,,%s 09:00,%s 10:00,", d, d),
		fmt.Sprintf("%s,1,,,,tomorrow,%s 10:00,", bo, d),
		fmt.Sprintf("%s,1,,,,%s 12:00,%s 11:00,", bo, d, d),
		fmt.Sprintf("%s,,,gpu-a,9,%s 12:00,%s 13:00,", bo, d, d),
	}, "\n") + "\n"
}

func postImport(t *testing.T, s *testserver.Server, tok, query, body string) (int, api.ImportReport) {
	t.Helper()
	req, _ := newReq("POST", s.URL+"/api/v1/bookings/import"+query, body, tok, "text/csv")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out api.ImportReport
	mustJSON(t, readAll(t, resp), &out)
	return resp.StatusCode, out
}

// The dry run says per row what would be created or why not; nothing is
// written while a row is invalid unless skip_invalid; a re-import reports
// the rows already imported instead of duplicating them; members only get
// 403.
func TestBookingImport(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	member, _ := s.UserToken(t, models.RoleMember)
	_, ana := s.UserToken(t, models.RoleMember)
	_, bo := s.UserToken(t, models.RoleMember)
	sheet := importSheet(ana.Email, bo.Email)

	st, res := postImport(t, s, admin, "?dry_run=true&tz=Europe/Berlin", sheet)
	if st != 200 || res.Create != 2 || res.Invalid != 5 || res.Written {
		t.Fatalf("dry run: %d %+v", st, res)
	}
	want := map[int]string{2: "", 3: "", 4: "clash with row 2", 5: "unknown email nobody@example.com", 6: "bad date",
		7: "end before start", 8: "unknown GPU 9 on gpu-a"}
	for _, r := range res.Rows {
		if !strings.Contains(r.Reason, want[r.Row]) || (want[r.Row] == "") != (r.Status == models.ImportCreate) {
			t.Errorf("row %d: %s %q, want %q", r.Row, r.Status, r.Reason, want[r.Row])
		}
	}
	if r := res.Rows[0]; r.StartsAt.UTC().Hour() != 8 {
		t.Errorf("09:00 Europe/Berlin read as %s", r.StartsAt)
	}
	if st, res := postImport(t, s, admin, "?tz=Europe/Berlin", sheet); st != 422 || res.Written || !strings.Contains(res.Error, "5 of 7 rows are invalid") {
		t.Fatalf("import with bad rows: %d %+v", st, res)
	}
	if n := countBookings(t, s); n != 0 {
		t.Fatalf("%d bookings written by a refused import", n)
	}
	if st, res := postImport(t, s, admin, "?tz=Europe/Berlin&skip_invalid=true", sheet); st != 200 || !res.Written || res.Create != 2 {
		t.Fatalf("import skipping bad rows: %d %+v", st, res)
	}
	st, res = postImport(t, s, admin, "?tz=Europe/Berlin&skip_invalid=true&create_users=true", sheet)
	if st != 200 || res.Existing != 2 || res.Create != 1 || !strings.Contains(res.Rows[0].Reason, "already imported as booking #") {
		t.Fatalf("re-import: %d %+v", st, res)
	}
	if st, res := postImport(t, s, admin, "?tz=Europe/Berlin&skip_invalid=true&create_users=true", sheet); st != 200 || res.Existing != 3 || res.Written {
		t.Fatalf("a third import with nothing new: %d %+v", st, res)
	}
	if n := countBookings(t, s); n != 3 {
		t.Fatalf("%d bookings after the re-import, want 3 (nobody@ was created)", n)
	}
	if st, _ := postImport(t, s, member, "?dry_run=true", sheet); st != 403 {
		t.Fatalf("a member imports: %d", st)
	}
	if st, res := postImport(t, s, admin, "?dry_run=true", "name,when\nx,y\n"); st != 400 || !strings.Contains(res.Error, "unknown column") {
		t.Fatalf("a sheet with other columns: %d %+v", st, res)
	}
}

func countBookings(t *testing.T, s *testserver.Server) int {
	t.Helper()
	n, err := s.DB.Bun.NewSelect().Model((*models.Booking)(nil)).Where("kind = 'booking'").Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// Imported rows follow the booking rules of the API: a row already over,
// too long, too large or too far ahead is refused, saying which rule.
func TestBookingImportRules(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	admin, u := s.UserToken(t, models.RoleAdmin)
	now := time.Now().UTC()
	f := func(t time.Time) string { return t.Format(time.RFC3339) }
	sheet := "email,gpus,start,end\n" +
		fmt.Sprintf("%s,1,%s,%s\n", u.Email, f(now.Add(-3*time.Hour)), f(now.Add(-time.Hour))) +
		fmt.Sprintf("%s,1,%s,%s\n", u.Email, f(now.Add(time.Hour)), f(now.Add(100*time.Hour))) +
		fmt.Sprintf("%s,9,%s,%s\n", u.Email, f(now.Add(time.Hour)), f(now.Add(2*time.Hour))) +
		fmt.Sprintf("%s,1,%s,%s\n", u.Email, f(now.Add(40*24*time.Hour)), f(now.Add(40*24*time.Hour+time.Hour))) +
		fmt.Sprintf("%s,1,%s,%s\n", u.Email, f(now.Add(-time.Hour)), f(now.Add(time.Hour)))
	st, res := postImport(t, s, admin, "?dry_run=true", sheet)
	want := []string{"already over", "a booking may last at most 72h", "at most 8", "more than 30 days ahead", ""}
	if st != 200 || len(res.Rows) != len(want) {
		t.Fatalf("dry run: %d %+v", st, res)
	}
	for i, r := range res.Rows {
		if !strings.Contains(r.Reason, want[i]) || (want[i] == "") != (r.Status == models.ImportCreate) {
			t.Errorf("row %d: %s %q, want %q", r.Row, r.Status, r.Reason, want[i])
		}
	}
}
