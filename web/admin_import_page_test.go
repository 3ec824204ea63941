package web_test

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

var confirmSheet = regexp.MustCompile(`(?s)<textarea name="sheet" hidden>(.*?)</textarea>`)

// uploadSheet posts the sheet as a file to /admin/import, as the form does.
func uploadSheet(t *testing.T, s *testserver.Server, c *http.Client, sheet string, fields url.Values) (int, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fields.Set("_csrf", s.CSRF(t, c))
	for k, vs := range fields {
		for _, v := range vs {
			_ = w.WriteField(k, v)
		}
	}
	fw, _ := w.CreateFormFile("file", "sheet.csv")
	_, _ = io.WriteString(fw, sheet)
	_ = w.Close()
	resp, err := c.Post(s.URL+"/admin/import", w.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Upload → preview (per row, nothing written) → confirm; the preview of a
// sheet with a bad row offers no confirm unless the valid rows may go in.
func TestAdminImportPage(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	root := s.Login(t, "root@example.com")
	member := s.Login(t, "ana@example.com")
	s.Login(t, "bo@example.com")
	sheet := importSheet("ana@example.com", "bo@example.com")

	st, body := uploadSheet(t, s, root, sheet, url.Values{"tz": {"Europe/Berlin"}})
	for _, want := range []string{"2 to create, 0 already imported, 5 invalid", `data-row="4" data-status="invalid"`, "clash with row 2",
		"unknown email nobody@example.com", "10:00–12:00 CET"} {
		if st != 200 || !strings.Contains(body, want) {
			t.Fatalf("preview: %d, lacks %q", st, want)
		}
	}
	if strings.Contains(body, `data-testid="import-confirm"`) || countBookings(t, s) != 0 {
		t.Fatalf("a preview with invalid rows offers to confirm, or wrote")
	}
	st, body = uploadSheet(t, s, root, sheet, url.Values{"tz": {"Europe/Berlin"}, "skip_invalid": {"on"}})
	m := confirmSheet.FindStringSubmatch(body)
	if st != 200 || m == nil || !strings.Contains(body, `data-testid="import-confirm"`) {
		t.Fatalf("preview skipping invalid rows: %d", st)
	}
	st, page, _ := postForm(t, s, root, "/admin/import/confirm", url.Values{"tz": {"Europe/Berlin"}, "skip_invalid": {"on"},
		"sheet": {html.UnescapeString(m[1])}})
	if st != 201 || !strings.Contains(page, "Imported 2 bookings.") || countBookings(t, s) != 2 {
		t.Fatalf("confirm: %d %d bookings", st, countBookings(t, s))
	}
	if st, _ := calGet(t, s, member, "/admin/import"); st != 403 {
		t.Fatalf("a member opens the import page: %d", st)
	}
}

// The import is linked from every admin page. A sheet that gives a member
// more live bookings than members may make (5 by default) is previewed with
// a warning on those rows and imported all the same: an admin's import is
// exempt from the limit; the member still meets it when booking herself.
func TestAdminImportLiveLimit(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	root := s.Login(t, "root@example.com")
	s.Login(t, "ana@example.com")
	ana, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	anaTok, _, err := models.CreateUserToken(t.Context(), s.DB.Bun, ana.ID, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, page := fetchPage(t, s, root, "/admin/users"); !strings.Contains(page, `href="/admin/import"`) {
		t.Error("the admin pages do not link the import")
	}
	rows := []string{"email,gpus,gpu_model,node,gpu_ids,start,end,note"}
	day := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	for h := 8; h < 15; h++ { // 7 bookings, one an hour
		rows = append(rows, fmt.Sprintf("ana@example.com,1,,,,%s %02d:00,%s %02d:00,", day, h, day, h+1))
	}
	sheet := strings.Join(rows, "\n") + "\n"
	st, body := uploadSheet(t, s, root, sheet, url.Values{"tz": {"UTC"}})
	text := humanText(t, body)
	if st != 200 || !strings.Contains(body, `data-testid="import-confirm"`) {
		t.Fatalf("preview: %d", st)
	}
	for _, want := range []string{"7 rows take its owner over the limit", "ana@example.com will have 7 upcoming or active bookings, over the 5 a member may make"} {
		if !strings.Contains(text, want) {
			t.Errorf("the preview does not warn %q:\n%s", want, text)
		}
	}
	m := confirmSheet.FindStringSubmatch(body)
	st, page, _ := postForm(t, s, root, "/admin/import/confirm", url.Values{"tz": {"UTC"}, "sheet": {html.UnescapeString(m[1])}})
	if st != 201 || !strings.Contains(page, "Imported 7 bookings.") || countBookings(t, s) != 7 {
		t.Fatalf("confirm over the limit: %d, %d bookings", st, countBookings(t, s))
	}
	later := time.Now().UTC().AddDate(0, 0, 2).Truncate(time.Hour)
	if st, b := s.Do(t, "POST", "/api/v1/bookings", anaTok, fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q}`,
		later.Format(time.RFC3339), later.Add(time.Hour).Format(time.RFC3339))); st != 409 || !strings.Contains(string(b), "you have 7 upcoming or active bookings") {
		t.Errorf("ana books an eighth herself: %d %s", st, b)
	}
}
